import type { Pool } from 'pg';
import type { Keyring } from './keyring';
import { rotateSecretColumns, type RotationOptions, type RotationReport } from './rotate-secret-columns';
import { SecretCipher } from './secret-cipher';
import type { SecretColumn } from './secret-column';
import { SecretColumnRegistry } from './secret-column-registry';
import type { SecretContext } from './secret-context';

/**
 * What plugins use to keep credentials encrypted at rest (see secret-column.ts for
 * the intended pattern). Plaintext exists only between `decrypt` and its use; stored
 * values are `sb1:...` strings that a route returns only if it means to.
 */
export interface SecretsService {
  /** Seals `plaintext` under the newest key, bound to `context`. */
  encrypt(plaintext: string, context: SecretContext): string;
  /** Opens a sealed value; throws SecretDecryptionError for another context, a tampered value or an unknown key. */
  decrypt(sealed: string, context: SecretContext): string;
  /** Whether a sealed value is under a key other than the newest. */
  needsRotation(sealed: string): boolean;
  /** The same secret sealed again under the newest key. */
  rotate(sealed: string, context: SecretContext): string;
  /** Registers a column of this plugin for `switchboard secrets rotate`; call it from `init`. */
  declareColumn(column: SecretColumn): void;
}

/** The kernel's secrets service: the plugin API plus what the CLI's `secrets rotate` needs. */
export class Secrets implements SecretsService {
  readonly #cipher: SecretCipher;
  readonly #columns = new SecretColumnRegistry();

  constructor(keyring: Keyring) {
    this.#cipher = new SecretCipher(keyring);
  }

  /** Configured key ids, oldest first; the last one encrypts. */
  get keyIds(): readonly string[] {
    return this.#cipher.keyring.ids;
  }

  encrypt(plaintext: string, context: SecretContext): string {
    return this.#cipher.encrypt(plaintext, context);
  }

  decrypt(sealed: string, context: SecretContext): string {
    return this.#cipher.decrypt(sealed, context);
  }

  needsRotation(sealed: string): boolean {
    return this.#cipher.needsRotation(sealed);
  }

  rotate(sealed: string, context: SecretContext): string {
    return this.#cipher.rotate(sealed, context);
  }

  declareColumn(column: SecretColumn): void {
    this.#columns.declare(column);
  }

  /** The declared columns, in declaration order. */
  columns(): readonly SecretColumn[] {
    return this.#columns.all();
  }

  /** Re-encrypts every declared column's values under the newest key. */
  rotateAll(pool: Pick<Pool, 'connect'>, options?: RotationOptions): Promise<RotationReport> {
    return rotateSecretColumns(pool, this.#cipher, this.#columns.all(), options);
  }
}
