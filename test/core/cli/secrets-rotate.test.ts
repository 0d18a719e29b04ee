import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, startTestKernel } from '../../../core/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const HOLDER = path.join(ROOT, 'test/fixtures/plugins/secret-holder');
const key = () => crypto.randomBytes(32).toString('base64');

describe('switchboard secrets rotate', () => {
  it('re-encrypts every declared secret under the newest key, after which the old key can go', async () => {
    const database = await createTestDatabase();
    const [oldKey, newKey] = [key(), key()];
    try {
      const before = await startTestKernel({ plugins: [HOLDER], config: { databaseUrl: database.url, secretsKey: oldKey } });
      const uuids: string[] = [];
      for (const value of ['alpha', 'beta', 'gamma']) uuids.push((await before.api.post('/api/v1/holder').send({ value }).expect(201)).body.data.uuid);
      const token = before.token;
      await before.stop();

      const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/switchboard.js'), 'secrets', 'rotate'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, SECRETS_KEY: `${oldKey},${newKey}`, PLUGINS_PATH: path.dirname(HOLDER), LOG_LEVEL: 'warn' },
      });
      expect(JSON.parse(stdout)).toMatchObject({ rotated: 3, failed: 0 });

      const after = await startTestKernel({ plugins: [HOLDER], tenant: 'other', config: { databaseUrl: database.url, secretsKey: newKey } });
      try {
        const acme = after.client({ host: 'acme.localhost', token });
        const values = await Promise.all(uuids.map(async (uuid) => (await acme.get(`/api/v1/holder/${uuid}`).expect(200)).body.data.value));
        expect(values).toEqual(['alpha', 'beta', 'gamma']);
      } finally {
        await after.stop();
      }
    } finally {
      await database.drop();
    }
  });
});
