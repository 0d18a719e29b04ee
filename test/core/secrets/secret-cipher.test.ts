import crypto from 'node:crypto';
import { inspect } from 'node:util';
import { parseKeyring } from '../../../core/secrets/keyring';
import { SecretDecryptionError } from '../../../core/secrets/secret-decryption-error';
import { Secrets } from '../../../core/secrets/secrets';

const newKey = () => crypto.randomBytes(32).toString('base64');
const secretsWith = (...keys: string[]) => new Secrets(parseKeyring(keys.join(','), 'SECRETS_KEY'));

const tenantA = crypto.randomUUID();
const tenantB = crypto.randomUUID();
const webhook = { tenantUuid: tenantA, entity: 'agent_webhook', field: 'secret' };
const PLAINTEXT = 'whsec_correct-horse-battery-staple';

/** Runs `fn`, expecting a SecretDecryptionError, and returns it. */
function decryptionError(fn: () => unknown): SecretDecryptionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretDecryptionError);
    return error as SecretDecryptionError;
  }
  throw new Error('expected a SecretDecryptionError');
}

describe('secrets: AES-256-GCM bound to tenant, entity and field', () => {
  const key = newKey();
  const secrets = secretsWith(key);

  it('round-trips, in the versioned key-id format, without the plaintext in the stored value', () => {
    const sealed = secrets.encrypt(PLAINTEXT, webhook);
    expect(sealed).toMatch(new RegExp(`^sb1:${secrets.keyIds[0]}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain(PLAINTEXT);
    expect(secrets.decrypt(sealed, webhook)).toBe(PLAINTEXT);
    expect(secrets.decrypt(secrets.encrypt('', webhook), webhook)).toBe('');
    expect(secrets.decrypt(secrets.encrypt('pässwörd 🔑', webhook), webhook)).toBe('pässwörd 🔑');
  });

  it('opens a value with an upper-case copy of the tenant uuid (PostgreSQL prints them lower-case)', () => {
    const sealed = secrets.encrypt(PLAINTEXT, webhook);
    expect(secrets.decrypt(sealed, { ...webhook, tenantUuid: tenantA.toUpperCase() })).toBe(PLAINTEXT);
  });

  it.each([
    ['another tenant', { ...webhook, tenantUuid: tenantB }],
    ['another entity', { ...webhook, entity: 'sip_trunk' }],
    ['another field', { ...webhook, field: 'password' }],
  ])('refuses a ciphertext moved to %s', (_what, context) => {
    const sealed = secrets.encrypt(PLAINTEXT, webhook);
    const error = decryptionError(() => secrets.decrypt(sealed, context));
    expect(error.reason).toBe('authentication-failed');
    expect(error.message).toContain(context.tenantUuid);
    expect(error.message).not.toContain(PLAINTEXT);
    expect(error.message).not.toContain(sealed);
  });

  it('refuses a tampered ciphertext: any flipped byte of IV, body or tag', () => {
    const sealed = secrets.encrypt(PLAINTEXT, webhook);
    const [version, keyId, payload] = sealed.split(':') as [string, string, string];
    const bytes = Buffer.from(payload, 'base64url');
    for (const index of [0, 12, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[index]! ^= 0x01;
      const error = decryptionError(() => secrets.decrypt(`${version}:${keyId}:${tampered.toString('base64url')}`, webhook));
      expect(error.reason).toBe('authentication-failed');
    }
    const truncated = `${version}:${keyId}:${bytes.subarray(0, bytes.length - 1).toString('base64url')}`;
    expect(decryptionError(() => secrets.decrypt(truncated, webhook)).reason).toBe('authentication-failed');
  });

  it('refuses values that are not ciphertexts as malformed', () => {
    for (const value of ['', PLAINTEXT, 'sb1:kabc', 'sb2:kabc:AAAA', `sb1:${secrets.keyIds[0]}:AAAA`, 'sb1:k:x:y']) {
      const error = decryptionError(() => secrets.decrypt(value, webhook));
      expect(error.reason).toBe('malformed');
      expect(error.message).toContain('agent_webhook.secret');
    }
    expect(() => secrets.needsRotation(PLAINTEXT)).toThrow(SecretDecryptionError);
  });

  it('names an unknown key id clearly, without plaintext or key material', () => {
    const other = secretsWith(newKey());
    const sealed = other.encrypt(PLAINTEXT, webhook);
    const error = decryptionError(() => secrets.decrypt(sealed, webhook));
    expect(error.reason).toBe('unknown-key');
    expect(error.message).toContain(`key "${other.keyIds[0]}"`);
    expect(error.message).toContain('SECRETS_KEY');
    expect(error.message).toContain(`"${secrets.keyIds[0]}"`);
    expect(error.message).not.toContain(PLAINTEXT);
    expect(error.message).not.toContain(key);
  });

  it('encrypts one plaintext differently every time (random IV)', () => {
    const first = secrets.encrypt(PLAINTEXT, webhook);
    const second = secrets.encrypt(PLAINTEXT, webhook);
    expect(first).not.toBe(second);
    expect(first.split(':')[2]!.slice(0, 16)).not.toBe(second.split(':')[2]!.slice(0, 16));
    expect(secrets.decrypt(second, webhook)).toBe(secrets.decrypt(first, webhook));
  });

  it('refuses a malformed context instead of binding something ambiguous', () => {
    expect(() => secrets.encrypt(PLAINTEXT, { ...webhook, tenantUuid: 'acme' })).toThrow(/tenantUuid must be a uuid/);
    expect(() => secrets.encrypt(PLAINTEXT, { ...webhook, entity: 'agent|webhook' })).toThrow(/entity must be a name/);
    expect(() => secrets.encrypt(PLAINTEXT, { ...webhook, field: '' })).toThrow(/field must be a name/);
  });

  it('never shows key material when the service or its keyring is logged or serialized', () => {
    const keyring = parseKeyring(key, 'SECRETS_KEY');
    const printed = [secrets, keyring, { keyring }].flatMap((value) => [inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value)]).join('\n');
    expect(printed).toContain(keyring.ids[0]);
    expect(printed).not.toContain(key);
    expect(printed).not.toContain(Buffer.from(key, 'base64').toString('hex'));
  });
});

describe('secrets: rotation', () => {
  it('moves a value from key A to key B so that B alone opens it', () => {
    const [a, b] = [newKey(), newKey()];
    const underA = secretsWith(a);
    const both = secretsWith(a, b);
    const onlyB = secretsWith(b);
    const sealed = underA.encrypt(PLAINTEXT, webhook);

    expect(both.decrypt(sealed, webhook)).toBe(PLAINTEXT);
    expect(both.needsRotation(sealed)).toBe(true);
    const rotated = both.rotate(sealed, webhook);
    expect(both.needsRotation(rotated)).toBe(false);
    expect(rotated.split(':')[1]).toBe(onlyB.keyIds[0]);
    expect(onlyB.decrypt(rotated, webhook)).toBe(PLAINTEXT);
    expect(decryptionError(() => onlyB.decrypt(sealed, webhook)).reason).toBe('unknown-key');
    // Rotation re-binds to the same context: the rotated value still refuses another tenant.
    expect(decryptionError(() => onlyB.decrypt(rotated, { ...webhook, tenantUuid: tenantB })).reason).toBe('authentication-failed');
  });

  it('encrypts new values under the newest (last) key', () => {
    const [a, b] = [newKey(), newKey()];
    const both = secretsWith(a, b);
    expect(both.encrypt(PLAINTEXT, webhook).split(':')[1]).toBe(both.keyIds[1]);
    expect(secretsWith(b).decrypt(both.encrypt(PLAINTEXT, webhook), webhook)).toBe(PLAINTEXT);
  });

  it('refuses to rotate a value bound to another context', () => {
    const [a, b] = [newKey(), newKey()];
    const sealed = secretsWith(a).encrypt(PLAINTEXT, webhook);
    expect(() => secretsWith(a, b).rotate(sealed, { ...webhook, tenantUuid: tenantB })).toThrow(SecretDecryptionError);
  });
});
