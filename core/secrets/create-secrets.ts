import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../errors/boot-error';
import type { Logger } from '../logging/logger';
import { KEY_FILE_NAME, readOrCreateKeyFile } from './key-file';
import { parseKeyring, type Keyring } from './keyring';
import type { SecretsConfig } from './secrets-config';
import { Secrets } from './secrets';

export interface SecretsEnvironment {
  dataDir: string;
  /** True when the kernel runs the embedded database (no DATABASE_URL). */
  embedded: boolean;
  logger?: Logger;
}

/** Builds the secrets service at boot; every problem with the key is a BootError. */
export function createSecrets(settings: SecretsConfig, environment: SecretsEnvironment): Secrets {
  return new Secrets(resolveKeyring(settings, environment));
}

/**
 * Where the keys come from:
 * - SECRETS_KEY when set;
 * - otherwise, on the embedded database, DATA_DIR/secrets.key (generated on first start);
 * - otherwise boot fails. With DATABASE_URL there may be several API and worker
 *   machines, and a key generated on one of them would not decrypt on the others.
 *
 * When SECRETS_KEY is set and DATA_DIR still holds a generated key, SECRETS_KEY must
 * include it: the secrets stored so far are under that key, and setting SECRETS_KEY to
 * a fresh key alone would make every one of them undecryptable.
 */
export function resolveKeyring(settings: SecretsConfig, environment: SecretsEnvironment): Keyring {
  const file = path.join(path.resolve(environment.dataDir), KEY_FILE_NAME);
  if (settings.secretsKey.trim() !== '') {
    const keyring = parseKeyring(settings.secretsKey, 'SECRETS_KEY');
    if (fs.existsSync(file) && !keyring.covers(parseKeyring(fs.readFileSync(file, 'utf8'), file))) {
      throw new BootError(
        `${file} holds the key this installation's secrets were encrypted under, and SECRETS_KEY does not include it. ` +
          `Put that key first in SECRETS_KEY, as it is and without an id (SECRETS_KEY=<content of ${KEY_FILE_NAME}>,<new key>), run \`switchboard secrets rotate\`, ` +
          `then remove the old key from SECRETS_KEY and delete ${file}.`,
      );
    }
    return keyring;
  }
  if (!environment.embedded) {
    throw new BootError(
      'SECRETS_KEY is not set. It encrypts stored secrets (webhook secrets, credentials), and with DATABASE_URL every API and ' +
        'worker machine must share it, so none is generated. Generate one with `openssl rand -base64 32` and set SECRETS_KEY to it on every machine.',
    );
  }
  const { text, created } = readOrCreateKeyFile(environment.dataDir);
  if (created) environment.logger?.info('generated the secrets key; back it up with the database, secrets cannot be decrypted without it', { file });
  return parseKeyring(text, file);
}
