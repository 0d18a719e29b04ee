import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BootError } from '../../../core/errors/boot-error';
import { createSecrets } from '../../../core/secrets/create-secrets';

const newKey = (bytes = 32) => crypto.randomBytes(bytes).toString('base64');
const context = { tenantUuid: crypto.randomUUID(), entity: 'sip_trunk', field: 'password' };

let dataDir: string;
beforeEach(() => {
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-secrets-')), 'data');
});
afterEach(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

const keyFile = () => path.join(dataDir, 'secrets.key');

function bootError(fn: () => unknown): BootError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BootError);
    return error as BootError;
  }
  throw new Error('expected a BootError');
}

describe('createSecrets: where the key comes from', () => {
  it('on the embedded database, generates a key into DATA_DIR/secrets.key (mode 0600) and reuses it on the next start', () => {
    const first = createSecrets({ secretsKey: '' }, { dataDir, embedded: true });
    expect(fs.statSync(keyFile()).mode & 0o777).toBe(0o600);
    const content = fs.readFileSync(keyFile(), 'utf8');
    expect(Buffer.from(content.trim(), 'base64')).toHaveLength(32);
    expect(fs.readdirSync(dataDir)).toEqual(['secrets.key']);
    const sealed = first.encrypt('trunk-password', context);

    const second = createSecrets({ secretsKey: '' }, { dataDir, embedded: true });
    expect(fs.readFileSync(keyFile(), 'utf8')).toBe(content);
    expect(second.keyIds).toEqual(first.keyIds);
    expect(second.decrypt(sealed, context)).toBe('trunk-password');
  });

  it('uses SECRETS_KEY when set, and then writes no key file', () => {
    const key = newKey();
    const secrets = createSecrets({ secretsKey: key }, { dataDir, embedded: true });
    expect(fs.existsSync(keyFile())).toBe(false);
    const again = createSecrets({ secretsKey: key }, { dataDir, embedded: false });
    expect(again.decrypt(secrets.encrypt('x', context), context)).toBe('x');
  });

  it('with an external database and no SECRETS_KEY, fails boot telling the operator how to make one', () => {
    const error = bootError(() => createSecrets({ secretsKey: '' }, { dataDir, embedded: false }));
    expect(error.message).toMatch(/^SECRETS_KEY is not set/);
    expect(error.message).toContain('openssl rand -base64 32');
    expect(fs.existsSync(keyFile())).toBe(false);
    expect(bootError(() => createSecrets({ secretsKey: '   ' }, { dataDir, embedded: false })).message).toMatch(/^SECRETS_KEY is not set/);
  });

  it('refuses a key of the wrong length, naming SECRETS_KEY', () => {
    const short = newKey(24);
    const error = bootError(() => createSecrets({ secretsKey: short }, { dataDir, embedded: true }));
    expect(error.message).toMatch(/SECRETS_KEY is 24 bytes after base64 decoding; it must be 32/);
    expect(error.message).not.toContain(short);
  });

  it('refuses a damaged key file, naming it', () => {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(keyFile(), newKey(8) + '\n', { mode: 0o600 });
    expect(bootError(() => createSecrets({ secretsKey: '' }, { dataDir, embedded: true })).message).toContain(`${keyFile()} is 8 bytes`);
  });

  it('refuses a SECRETS_KEY that leaves out the generated key existing secrets are under, and accepts one that keeps it', () => {
    const generated = createSecrets({ secretsKey: '' }, { dataDir, embedded: true });
    const sealed = generated.encrypt('trunk-password', context);
    const fileKey = fs.readFileSync(keyFile(), 'utf8').trim();
    const fresh = newKey();

    expect(bootError(() => createSecrets({ secretsKey: fresh }, { dataDir, embedded: true })).message).toMatch(
      /secrets\.key holds the key .* SECRETS_KEY does not include it.*switchboard secrets rotate/,
    );
    // The same key under another id would not open the stored values either.
    expect(() => createSecrets({ secretsKey: `renamed:${fileKey},${fresh}` }, { dataDir, embedded: true })).toThrow(BootError);

    const both = createSecrets({ secretsKey: `${fileKey},${fresh}` }, { dataDir, embedded: true });
    expect(both.decrypt(sealed, context)).toBe('trunk-password');
    expect(both.needsRotation(sealed)).toBe(true);
  });
});
