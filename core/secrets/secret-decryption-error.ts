/**
 * Why a stored secret could not be opened:
 * - `malformed`: the value is not a Switchboard ciphertext (truncated, hand-edited, plaintext);
 * - `unknown-key`: it names a key id that SECRETS_KEY does not hold (a key was dropped too early);
 * - `authentication-failed`: the GCM tag does not match, because the ciphertext was altered or
 *   belongs to another tenant, entity or field (a row copied across tenants ends here).
 */
export type SecretDecryptionFailure = 'malformed' | 'unknown-key' | 'authentication-failed';

/**
 * A secret that cannot be decrypted. Its message names the tenant, entity, field and
 * key id (none of which is secret) so an operator can find the row, and never carries
 * plaintext, ciphertext or key material, so it is safe to log.
 */
export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';

  constructor(
    readonly reason: SecretDecryptionFailure,
    message: string,
  ) {
    super(message);
  }
}
