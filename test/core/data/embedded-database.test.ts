import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { Kernel } from '../../../core/kernel/kernel';
import { startEmbeddedPostgres } from '../../../core/data/embedded-postgres';
import { createRootLogger } from '../../../core/logging/logger';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
const quiet = createRootLogger({ level: 'error', format: 'json' });

/** Boots the real default path: no DATABASE_URL, so the kernel runs PostgreSQL in DATA_DIR. */
const boot = (dataDir: string, port: number) =>
  Kernel.boot({
    role: 'start',
    plugins: [NOTES],
    env: {},
    config: { port: 0, host: '127.0.0.1', dataDir, embeddedPostgresPort: port, logLevel: 'error' },
  });

const postmasterPid = (dataDir: string) => Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let dataDir: string;
let port: number;
/** A port the system just gave out as free (a random pick can land on a client connection's port). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });

beforeEach(async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-embedded-'));
  fs.chmodSync(parent, 0o711); // as root, the server runs as `postgres`, which must pass through
  dataDir = path.join(parent, 'data');
  port = await freePort();
});
afterEach(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

describe('embedded PostgreSQL (no DATABASE_URL)', () => {
  (process.getuid?.() === 0 ? it : it.skip)('as root, explains a DATA_DIR the postgres user cannot reach', async () => {
    fs.chmodSync(path.dirname(dataDir), 0o700);
    await expect(boot(dataDir, port)).rejects.toThrow(/cannot reach DATA_DIR .* is not traversable by others \(mode 700\)/);
  });

  it('initialises DATA_DIR on the first run, migrates, reuses it on the next run and stops with the kernel', async () => {
    const first = await boot(dataDir, port);
    await first.start();
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(fs.statSync(path.join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
    await supertest(first.url).get('/readyz').expect(200);
    const { token } = await first.tenants.createTenant({ slug: 'acme' });
    // It connects as the application role, for which the tenant tables' row-level security policies hold.
    const [role] = await first.orm.em
      .fork()
      .getConnection()
      .execute(
        `select current_user as name, r.rolsuper as superuser, r.rolbypassrls as bypass, ` +
          `(select relforcerowsecurity from pg_class where relname = 'example_notes') as forced, ` +
          `(select pg_get_userbyid(relowner) from pg_class where relname = 'example_notes') as owner from pg_roles r where r.rolname = current_user`,
      );
    expect(role).toEqual({ name: 'switchboard_app', superuser: false, bypass: false, forced: true, owner: 'switchboard_app' });
    const pid = postmasterPid(dataDir);
    await first.stop();
    expect(alive(pid)).toBe(false);

    const second = await boot(dataDir, port);
    await second.start();
    try {
      // The tenant and its token survived: the same cluster was reused, not re-initialised.
      await supertest(second.url).get('/api/v1/notes').set('Host', 'acme.localhost').set('Authorization', `Bearer ${token}`).expect(200);
    } finally {
      await second.stop();
    }
  });

  it('a second command on the same port without the server\'s DATA_DIR names that DATA_DIR and leaves no folder of its own behind', async () => {
    const first = await boot(dataDir, port);
    await first.start();
    try {
      const elsewhere = path.join(path.dirname(dataDir), 'second-terminal', 'data');
      await expect(boot(elsewhere, port)).rejects.toThrow(`run this command with DATA_DIR=${dataDir}`);
      expect(fs.existsSync(elsewhere)).toBe(false);
    } finally {
      await first.stop();
    }
  });

  it('a port held by another program is said to be so; the DATA_DIR the command made is removed', async () => {
    const holder = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      await expect(boot(dataDir, port)).rejects.toThrow(/port \d+ \(EMBEDDED_POSTGRES_PORT\) is in use by another program/);
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('answers 503 while the database is gone and recovers by itself when it is back', async () => {
    const kernel = await boot(dataDir, port);
    await kernel.start();
    const { token } = await kernel.tenants.createTenant({ slug: 'acme' });
    const api = () => supertest(kernel.url).get('/api/v1/notes').set('Host', 'acme.localhost').set('Authorization', `Bearer ${token}`);
    try {
      await api().expect(200);

      const pid = postmasterPid(dataDir);
      process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown: the server goes away under the kernel
      await waitFor(() => !alive(pid));

      const ready = await supertest(kernel.url).get('/readyz').expect(503);
      expect(ready.body).toEqual({ status: 'unavailable', checks: { database: 'down' } });
      // Past the auth cache, a request that needs the database gets a 503 in the error envelope, not a 500.
      const down = await supertest(kernel.url).get('/api/v1/notes').set('Host', 'acme.localhost').set('Authorization', 'Bearer sbt_uncached').expect(503);
      expect(down.body).toEqual({ success: false, message: 'Service unavailable: the database cannot be reached', data: [] });
      await api().expect(503);

      const restarted = await startEmbeddedPostgres({ dataDir, port, logger: quiet });
      try {
        await waitFor(async () => (await supertest(kernel.url).get('/readyz')).status === 200);
        await api().expect(200);
      } finally {
        await restarted.stop();
      }
    } finally {
      await kernel.stop();
    }
  });
});
