import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres } from './embedded-postgres-module';
import { BootError } from '../errors/boot-error';
import type { Logger } from '../logging/logger';

export const EMBEDDED_DATABASE = 'switchboard';
/** The role Switchboard connects as: no superuser, no BYPASSRLS, so the tables' tenant policies hold for it (README, "Row-level security"). */
export const EMBEDDED_APP_ROLE = 'switchboard_app';

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
  if (!runningServer(databaseDir) && (await portAnswers(options.port))) throw portTaken(dataDir, options.port);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to pass
  // through DATA_DIR to reach its own folder (it cannot list or read the rest).
  if (process.getuid?.() === 0) {
    fs.chmodSync(dataDir, 0o711);
    refuseUntraversableParents(dataDir);
  }
  const password = readOrCreateSecret(path.join(dataDir, 'postgres.password'));
  const appPassword = readOrCreateSecret(path.join(dataDir, 'postgres-app.password'));
  const log = options.logger.child({ component: 'embedded-postgres' });

  const running = runningServer(databaseDir);
  if (running) {
    log.info('embedded PostgreSQL already running; connecting to it', { port: running.port });
    await ensureAppRole(superuserUrl(password, running.port), appPassword);
    return { url: urlFor(appPassword, running.port), stop: async () => {} };
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
  await ensureAppRole(superuserUrl(password, options.port), appPassword);
  writeOwnerMark(options.port, dataDir);
  log.info('embedded PostgreSQL started', { port: options.port });
  return {
    url: urlFor(appPassword, options.port),
    stop: async () => {
      await stopServer(databaseDir);
      fs.rmSync(ownerMarkFile(options.port), { force: true });
    },
  };
}

/**
 * Where the process that started an embedded PostgreSQL notes its DATA_DIR, so that a
 * command started elsewhere (the CLI in another terminal, without DATA_DIR) can say
 * which DATA_DIR to use instead of guessing at a port.
 */
function ownerMarkFile(port: number): string {
  return path.join(os.tmpdir(), `switchboard-embedded-postgres-${port}`);
}

function writeOwnerMark(port: number, dataDir: string): void {
  try {
    fs.writeFileSync(ownerMarkFile(port), dataDir + '\n', { mode: 0o644 });
  } catch {
    // Only advice is lost.
  }
}

function portTaken(dataDir: string, port: number): BootError {
  let owner: string | undefined;
  try {
    owner = fs.readFileSync(ownerMarkFile(port), 'utf8').trim() || undefined;
  } catch {
    owner = undefined;
  }
  if (owner && owner !== dataDir && runningServer(path.join(owner, 'postgres'))) {
    return new BootError(
      `the embedded PostgreSQL port ${port} is held by the embedded PostgreSQL of another Switchboard, whose DATA_DIR is ${owner}. ` +
        `To work with that server, run this command with DATA_DIR=${owner} (from its folder, or as an absolute path); ` +
        'to run a separate one, set EMBEDDED_POSTGRES_PORT to a free port.',
    );
  }
  return new BootError(
    `port ${port} (EMBEDDED_POSTGRES_PORT) is in use by another program, so the embedded PostgreSQL for DATA_DIR ${dataDir} cannot start. ` +
      'If that is a running Switchboard, run this command with its DATA_DIR; otherwise set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL to use your own server.',
  );
}

/** Whether something accepts connections on 127.0.0.1:port. */
function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1000);
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
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

function urlFor(appPassword: string, port: number): string {
  return `postgresql://${EMBEDDED_APP_ROLE}:${encodeURIComponent(appPassword)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}

function superuserUrl(password: string, port: number): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}

/**
 * The application role, made by the superuser on every start (idempotent): it owns the
 * database (so it runs the migrations and owns what they create) but is no superuser and
 * has no BYPASSRLS, and the kernel puts FORCE ROW LEVEL SECURITY on the tenant tables, so
 * their policies hold for it although it owns them. A DATA_DIR from before this role
 * existed has its tables owned by `postgres`: they are handed over.
 */
async function ensureAppRole(superuser: string, appPassword: string): Promise<void> {
  const client = new Client({ connectionString: superuser });
  await client.connect();
  try {
    const role = `"${EMBEDDED_APP_ROLE}"`;
    const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [EMBEDDED_APP_ROLE]);
    // The password is a base64url secret generated here: no quote can occur in it.
    const attributes = `login nosuperuser nobypassrls nocreaterole nocreatedb password '${appPassword}'`;
    await client.query(rowCount ? `alter role ${role} ${attributes}` : `create role ${role} ${attributes}`);
    await client.query(`alter database ${EMBEDDED_DATABASE} owner to ${role}`);
    await client.query(`alter schema public owner to ${role}`);
    const { rows } = await client.query<{ kind: string; name: string }>(
      `select case when c.relkind = 'S' then 'sequence' when c.relkind in ('v') then 'view' when c.relkind = 'm' then 'materialized view' else 'table' end as kind, ` +
        `format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace ` +
        `where n.nspname = 'public' and c.relkind in ('r', 'p', 'S', 'v', 'm') and pg_get_userbyid(c.relowner) <> $1 ` +
        // A sequence owned by a column follows its table.
        `and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i')))`,
      [EMBEDDED_APP_ROLE],
    );
    for (const { kind, name } of rows) await client.query(`alter ${kind} ${name} owner to ${role}`);
    const functions = await client.query<{ name: string }>(
      `select p.oid::regprocedure::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' and pg_get_userbyid(p.proowner) <> $1 ` +
        `and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
      [EMBEDDED_APP_ROLE],
    );
    for (const { name } of functions.rows) await client.query(`alter function ${name} owner to ${role}`);
  } finally {
    await client.end().catch(() => {});
  }
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
