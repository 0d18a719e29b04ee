import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEgress, type Egress } from '../../../core/egress';
import { captureLogger } from '../../../core/testing';

/**
 * A real Radicale (the Debian `radicale` package, installed by .ci/run) on loopback, for
 * tests of the CalDAV app: its own port, storage folder and plain htpasswd users,
 * stopped by `close()`. Missing Radicale is a failure that says how to install it,
 * never a skipped test.
 */
export interface RadicaleServer {
  /** `http://127.0.0.1:<port>/`: the server root, a valid `server_url`. */
  url: string;
  /** Sends a raw request as `user` (test setup and checks, outside the app). */
  request(user: string, method: string, pathname: string, options?: { body?: string; headers?: Record<string, string> }): Promise<{ status: number; text: string; etag: string | null }>;
  /** Creates a calendar collection (MKCALENDAR) and answers its path, `/<user>/<name>/`. */
  makeCalendar(user: string, name: string, displayName: string): Promise<string>;
  /** Stores a raw iCalendar object at `<calendar><name>`. */
  putObject(user: string, calendarPath: string, name: string, ics: string): Promise<string>;
  close(): Promise<void>;
}

/** The command that runs Radicale here: `radicale`, else `python3 -m radicale`; throws with how to install it. */
function radicaleCommand(): { command: string; args: string[] } {
  if (spawnSync('radicale', ['--version'], { stdio: 'ignore' }).status === 0) return { command: 'radicale', args: [] };
  if (spawnSync('python3', ['-m', 'radicale', '--version'], { stdio: 'ignore' }).status === 0) return { command: 'python3', args: ['-m', 'radicale'] };
  throw new Error('Radicale is not installed: the CalDAV app tests need it (apt-get install -y radicale; .ci/run installs it)');
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startRadicaleServer(options: { users: Record<string, string> }): Promise<RadicaleServer> {
  const { command, args } = radicaleCommand();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radicale-test-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users'), Object.entries(options.users).map(([user, password]) => `${user}:${password}\n`).join(''));
  fs.writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      // Radicale slows down refused logins; the wrong-password tests need no such wait.
      'delay = 0',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const output: string[] = [];
  const child: ChildProcess = spawn(command, [...args, '--config', path.join(dir, 'config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Radicale did not start on 127.0.0.1:${port}: ${output.join('').slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const url = `http://127.0.0.1:${port}/`;
  const request: RadicaleServer['request'] = async (user, method, pathname, requestOptions = {}) => {
    const authorization = `Basic ${Buffer.from(`${user}:${options.users[user]}`).toString('base64')}`;
    const response = await fetch(new URL(pathname, url), { method, headers: { authorization, ...requestOptions.headers }, body: requestOptions.body });
    return { status: response.status, text: await response.text(), etag: response.headers.get('etag') };
  };
  return {
    url,
    request,
    async makeCalendar(user, name, displayName) {
      const pathname = `/${user}/${name}/`;
      const body =
        '<?xml version="1.0" encoding="utf-8"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">' +
        `<d:set><d:prop><d:displayname>${displayName.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</d:displayname></d:prop></d:set></c:mkcalendar>`;
      const answer = await request(user, 'MKCALENDAR', pathname, { body, headers: { 'content-type': 'application/xml' } });
      if (answer.status !== 201) throw new Error(`MKCALENDAR ${pathname} answered ${answer.status}: ${answer.text}`);
      return pathname;
    },
    async putObject(user, calendarPath, name, ics) {
      const pathname = `${calendarPath}${name}`;
      const answer = await request(user, 'PUT', pathname, { body: ics, headers: { 'content-type': 'text/calendar; charset=utf-8' } });
      if (answer.status !== 201 && answer.status !== 204) throw new Error(`PUT ${pathname} answered ${answer.status}: ${answer.text}`);
      return pathname;
    },
    close: stop,
  };
}

/** The kernel's egress client as a test kernel configures it: loopback allowed (Radicale listens there), no retries. */
export function loopbackEgress(): Egress {
  return createEgress(
    { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 5000, egressTimeoutMs: 20_000, egressMaxResponseBytes: 10 * 1024 * 1024, egressMaxRetries: 0 },
    captureLogger().logger,
  );
}

/** A step's connection to `server` as `user` (the password from the server's users unless given), at `serverUrl` (the root by default). */
export const connectionTo = (server: RadicaleServer, user: string, password: string, serverUrl = server.url) => ({ credentials: { username: user, password, server_url: serverUrl } });

/** The start of the UTC day `days` from today, plus `hours`: event times that stay inside the app's default windows. */
export const dayFromNow = (days: number, hours = 0): Date => {
  const date = new Date();
  date.setUTCHours(0, 0, 0, 0);
  return new Date(date.getTime() + days * 86_400_000 + hours * 3_600_000);
};

export interface RadicaleFixture {
  readonly server: RadicaleServer;
  /** The path of alice's `work` calendar, `/alice/work/`. */
  readonly work: string;
  readonly egress: Egress;
  /** A step's connection as alice, at the server root. */
  connection(): ReturnType<typeof connectionTo>;
}

/**
 * A Radicale for one test file, started in beforeAll with the user alice and her `work`
 * calendar, stopped (with its loopback egress client) in afterAll. Its members are read
 * inside tests, once beforeAll has run.
 */
export function useRadicale(): RadicaleFixture {
  let server: RadicaleServer | undefined;
  let work: string | undefined;
  const egress = loopbackEgress();
  beforeAll(async () => {
    server = await startRadicaleServer({ users: { alice: 'alice-secret' } });
    work = await server.makeCalendar('alice', 'work', 'Work');
  });
  afterAll(async () => {
    await server?.close();
    await egress.close();
  });
  const running = () => {
    if (!server || work === undefined) throw new Error('Radicale starts in beforeAll');
    return { server, work };
  };
  return {
    get server() {
      return running().server;
    },
    get work() {
      return running().work;
    },
    egress,
    connection: () => connectionTo(running().server, 'alice', 'alice-secret'),
  };
}
