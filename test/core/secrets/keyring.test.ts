import crypto from 'node:crypto';
import convict from 'convict';
import { BootError } from '../../../core/errors/boot-error';
import { deriveKeyId, parseKeyring } from '../../../core/secrets/keyring';
import { secretsConfigSchema } from '../../../core/secrets/secrets-config';

const newKey = (bytes = 32) => crypto.randomBytes(bytes).toString('base64');

describe('SECRETS_KEY parsing', () => {
  it('takes one key and derives a stable short id from it', () => {
    const key = newKey();
    const keyring = parseKeyring(key, 'SECRETS_KEY');
    expect(keyring.ids).toEqual([deriveKeyId(Buffer.from(key, 'base64'))]);
    expect(keyring.ids[0]).toMatch(/^k[0-9a-f]{8}$/);
    expect(parseKeyring(` ${key}\n`, 'SECRETS_KEY').ids).toEqual(keyring.ids);
    expect(parseKeyring(newKey(), 'SECRETS_KEY').ids).not.toEqual(keyring.ids);
  });

  it('takes several keys, oldest first, with optional ids, the last one newest', () => {
    const [a, b, c] = [newKey(), newKey(), newKey()];
    const keyring = parseKeyring(`${a}, 2025b:${b},${c},`, 'SECRETS_KEY');
    expect(keyring.ids).toEqual([deriveKeyId(Buffer.from(a, 'base64')), '2025b', deriveKeyId(Buffer.from(c, 'base64'))]);
    expect(keyring.newestId).toBe(keyring.ids[2]);
    // Adding a key leaves the ids of the others as they were.
    expect(parseKeyring(a, 'SECRETS_KEY').ids[0]).toBe(keyring.ids[0]);
  });

  it('accepts base64url keys too', () => {
    const material = crypto.randomBytes(32);
    expect(parseKeyring(material.toString('base64url'), 'SECRETS_KEY').ids).toEqual([deriveKeyId(material)]);
  });

  it.each([
    ['a 16-byte key', () => newKey(16), /SECRETS_KEY is 16 bytes after base64 decoding; it must be 32.*openssl rand -base64 32/],
    ['a 33-byte key', () => newKey(33), /SECRETS_KEY is 33 bytes .* must be 32/],
    ['a hex key', () => crypto.randomBytes(32).toString('hex'), /SECRETS_KEY looks like hex; it takes base64/],
    ['a 48-byte key', () => newKey(48), /SECRETS_KEY is 48 bytes/],
    ['a passphrase', () => 'correct horse battery staple', /SECRETS_KEY is not base64/],
    ['a bad second key', () => `${newKey()},${newKey(31)}`, /SECRETS_KEY \(key 2 of 2\) is 31 bytes/],
    ['a bad key id', () => `bad id:${newKey()}`, /SECRETS_KEY: the key id before ":"/],
    ['a repeated id', () => `x:${newKey()},x:${newKey()}`, /keys 1 and 2 have the same id "x"/],
    ['a repeated key', () => ((k) => `${k},other:${k}`)(newKey()), /keys 1 and 2 are the same key/],
    ['only commas', () => ' , ', /SECRETS_KEY holds no key/],
  ])('refuses %s with a BootError naming SECRETS_KEY and not the value', (_what, make, message) => {
    const text = make();
    let error: unknown;
    try {
      parseKeyring(text, 'SECRETS_KEY');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BootError);
    expect((error as Error).message).toMatch(message);
    for (const part of text.split(/[,:]/).filter((p) => p.trim().length > 8)) expect((error as Error).message).not.toContain(part.trim());
  });

  it('is checked at config load, which reports the problem but never the sensitive value', () => {
    const short = newKey(16);
    const config = convict(secretsConfigSchema, { env: { SECRETS_KEY: short }, args: [] });
    let message = '';
    try {
      config.validate({ allowed: 'strict' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/secretsKey: SECRETS_KEY is 16 bytes/);
    expect(message).not.toContain(short);
    const good = newKey();
    const valid = convict(secretsConfigSchema, { env: { SECRETS_KEY: good }, args: [] });
    expect(() => valid.validate({ allowed: 'strict' })).not.toThrow();
    expect(valid.toString()).not.toContain(good);
    expect(() => convict(secretsConfigSchema, { env: {}, args: [] }).validate({ allowed: 'strict' })).not.toThrow();
  });
});
