import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddedPostgres } from './embedded-postgres-module';
import { BootError } from '../kernel/boot-error';
import type { Logger } from '../logging/logger';

export const EMBEDDED_DATABASE = 'switchboard';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/**
 * The default database of a fresh machine: a real PostgreSQL in DATA_DIR/postgres,
 * initialised on first use, reused afterwards, listening on loopback only with a
 * password generated once into DATA_DIR. When another Switchboard process already
 * runs it (`npm start` while the CLI creates a tenant), this one connects to it.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; logger: Logger }): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const databaseDir = path.join(dataDir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to pass
  // through DATA_DIR to reach its own folder (it cannot list or read the rest).
  if (process.getuid?.() === 0) {
    fs.chmodSync(dataDir, 0o711);
    refuseUntraversableParents(dataDir);
  }
  const password = readOrCreateSecret(path.join(dataDir, 'postgres.password'));
  const log = options.logger.child({ component: 'embedded-postgres' });

  const running = runningServer(databaseDir);
  if (running) {
    log.info('embedded PostgreSQL already running; connecting to it', { port: running.port });
    return { url: urlFor(password, running.port), stop: async () => {} };
  }

  // The server's last lines: when it exits before it is ready, the library rejects with
  // nothing, and these say why (port in use, bad permissions, ...).
  const recent: string[] = [];
  const remember = (line: string) => {
    log.debug(line);
    recent.push(line);
    if (recent.length > 5) recent.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => remember(String(message).trim()),
    onError: (message) => remember(String(message instanceof Error ? message.message : message).trim()),
  });

  try {
    if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      log.info('initialising the embedded PostgreSQL', { dir: databaseDir });
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : recent.length > 0 ? recent.join(' | ') : 'it exited before it was ready';
    throw new BootError(
      `could not start the embedded PostgreSQL in ${databaseDir} on port ${options.port}: ${reason}. ` +
        'Set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL to use your own server.',
    );
  }
  await ensureDatabase(server);
  log.info('embedded PostgreSQL started', { port: options.port });
  return { url: urlFor(password, options.port), stop: () => stopServer(databaseDir) };
}

/**
 * PostgreSQL will not run as root, so for root the embedded server runs as the
 * `postgres` user, which must be able to pass through every folder above DATA_DIR.
 * Say so plainly instead of letting initdb fail with "permission denied".
 */
function refuseUntraversableParents(dataDir: string): void {
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const mode = fs.statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      throw new BootError(
        `the embedded PostgreSQL runs as the "postgres" user (PostgreSQL refuses root), which cannot reach DATA_DIR ${dataDir} ` +
          `because ${dir} is not traversable by others (mode ${(mode & 0o777).toString(8)}). ` +
          `Choose a DATA_DIR under a traversable folder (e.g. /var/lib/switchboard), run \`chmod o+x ${dir}\`, or set DATABASE_URL.`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

function urlFor(password: string, port: number): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}

async function ensureDatabase(server: EmbeddedPostgres): Promise<void> {
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (!rowCount) await client.query(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}

/**
 * Stops the postmaster of this data folder by its pid file: PostgreSQL's fast
 * shutdown (SIGINT), escalating to an immediate one (SIGQUIT) if it lingers. Going by
 * the pid file, not the library's child handle, also works when the server was
 * restarted or already went away (the library's stop() would wait forever then).
 */
async function stopServer(databaseDir: string): Promise<void> {
  const pid = postmasterPid(databaseDir);
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += 50) {
    if (waited === 15_000) process.kill(pid, 'SIGQUIT');
    if (waited > 30_000) throw new Error(`the embedded PostgreSQL (pid ${pid}) did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function postmasterPid(databaseDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The port of a live postmaster owning this data folder; a stale pid file is removed. */
function runningServer(databaseDir: string): { port: number } | undefined {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = fs.readFileSync(pidFile, 'utf8').split('\n');
  if (isAlive(Number(pidLine))) return { port: Number(portLine) };
  fs.rmSync(pidFile, { force: true });
  return undefined;
}

export function readOrCreateSecret(file: string, bytes = 24): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const secret = crypto.randomBytes(bytes).toString('base64url');
  fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}
