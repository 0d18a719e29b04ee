import crypto from 'node:crypto';
import type { Keyring } from './keyring';
import { associatedData, describeContext, type SecretContext } from './secret-context';
import { SecretDecryptionError } from './secret-decryption-error';
import { formatSealed, IV_BYTES, parseSealed, TAG_BYTES } from './sealed-format';

/**
 * AES-256-GCM under a keyring: encrypts with the newest key, decrypts with whichever
 * key the ciphertext names. A fresh random IV per encryption means the same secret
 * stored twice gives two different ciphertexts (and GCM stays safe: with 96-bit random
 * IVs, one key may seal billions of values before an IV repeat becomes a concern).
 */
export class SecretCipher {
  constructor(readonly keyring: Keyring) {}

  encrypt(plaintext: string, context: SecretContext): string {
    if (typeof plaintext !== 'string') throw new TypeError('only strings can be encrypted as secrets');
    const aad = associatedData(context);
    const keyId = this.keyring.newestId;
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.keyring.key(keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return formatSealed({ keyId, iv, ciphertext, tag: cipher.getAuthTag() });
  }

  decrypt(sealed: string, context: SecretContext): string {
    const aad = associatedData(context);
    const parts = parseSealed(sealed);
    if (!parts) throw new SecretDecryptionError('malformed', `the stored ${describeContext(context)} is not an encrypted secret`);
    const key = this.keyring.key(parts.keyId);
    if (!key) {
      throw new SecretDecryptionError(
        'unknown-key',
        `the stored ${describeContext(context)} was encrypted under key "${parts.keyId}", which SECRETS_KEY does not hold ` +
          `(it holds ${this.keyring.ids.map((id) => `"${id}"`).join(', ')}); add that key back to SECRETS_KEY`,
      );
    }
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(parts.tag);
    try {
      return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(
        'authentication-failed',
        `the stored ${describeContext(context)} does not authenticate: it was altered, or belongs to another tenant, entity or field`,
      );
    }
  }

  /** Whether `sealed` is under a key other than the newest (malformed values throw). */
  needsRotation(sealed: string): boolean {
    const parts = parseSealed(sealed);
    if (!parts) throw new SecretDecryptionError('malformed', 'the value is not an encrypted secret');
    return parts.keyId !== this.keyring.newestId;
  }

  /** Decrypts with whichever key `sealed` names and encrypts again under the newest. */
  rotate(sealed: string, context: SecretContext): string {
    return this.encrypt(this.decrypt(sealed, context), context);
  }
}
