import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { appRoleWanted, handToAppRole } from './app-role';

/** Running Switchboard as the benchmarks do: its CLI in child processes, on free ports. */

export const CLI = path.join(__dirname, '..', '..', 'bin', 'switchboard.js');

export { SERVER_NODE_FLAGS } from './server-node-flags';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Runs `switchboard <args>` to the end and answers its stdout (rejects with its stderr). */
export function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`switchboard ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** Polls `/readyz` until the process on `port` answers 200 (30 s at most). */
export async function waitReady(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the switchboard process on port ${port} did not become ready`);
}

export interface BenchInstallation {
  /** The bench database's name, also the bus namespace. */
  name: string;
  databaseUrl: string;
  port: number;
  /** The environment the installation's processes run with. */
  env: NodeJS.ProcessEnv;
  token: string;
  tenantUuid: string;
}

/**
 * A fresh installation for one bench run: its own database on `serverUrl`, migrated,
 * with `tenant` and its token, a free port and the environment to start its processes
 * with (`extraEnv` on top, e.g. a larger upload limit).
 */
export async function prepareInstallation(options: {
  serverUrl: string;
  prefix: string;
  amqpUrl?: string;
  tenant: string;
  extraEnv?: NodeJS.ProcessEnv;
  /** Connect as a role row-level policies apply to (bench/lib/app-role.ts); default: BENCH_APP_ROLE=1. */
  appRole?: boolean;
}): Promise<BenchInstallation> {
  const name = `${options.prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: options.serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const superuserUrl = new URL(options.serverUrl);
  superuserUrl.pathname = `/${name}`;
  // BENCH_APP_ROLE=1: the processes connect as a role the row-level policies apply to.
  const databaseUrl = (options.appRole ?? appRoleWanted()) ? await handToAppRole(superuserUrl.toString()) : superuserUrl.toString();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    AMQP_URL: options.amqpUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_DOMAIN: 'localhost',
    SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    BUS_NAMESPACE: name,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `${options.prefix.replace(/_/g, '-')}-`)),
    ...options.extraEnv,
  };
  await cli(['migrate'], env);
  const created = JSON.parse(await cli(['tenant', 'create', options.tenant], env));
  return { name, databaseUrl: env.DATABASE_URL!, port, env, token: created.token, tenantUuid: created.tenant.uuid };
}

/**
 * Collects a response's body and answers `{status, body}` (the body parsed as JSON, if
 * any). Chunks are kept as they come and decoded once: the cheapest way for a client to
 * read a big body (the message export's pages).
 */
export function jsonResponse(resolve: (value: { status: number; body: any }) => void): (res: http.IncomingMessage) => void {
  return (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
    });
  };
}

/** Where a bench's requests go: a child's port, through the bench's keep-alive agent, as one tenant (`token` null: no bearer, e.g. a flow hook). */
export interface BenchTarget {
  port: number;
  agent: http.Agent;
  tenantSlug: string;
  token: string | null;
}

/** One JSON request to a Switchboard child, on the tenant's host. */
export function jsonRequest(target: BenchTarget, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        method,
        path: requestPath,
        agent: target.agent,
        headers: {
          host: `${target.tenantSlug}.localhost`,
          ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      jsonResponse(resolve),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** SIGTERM to the children, and waits until each has exited. */
export async function stopChildren(children: readonly ChildProcess[]): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
}

/** Undoes `prepareInstallation`: its data directory and its database. */
export async function removeInstallation(serverUrl: string, setup: BenchInstallation): Promise<void> {
  fs.rmSync(setup.env.DATA_DIR!, { recursive: true, force: true });
  await dropDatabase(serverUrl, setup.name);
}

/** Drops a bench database, whoever is still connected. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/**
 * Deletes an installation's exchange and queues (one per consumer of the plugins its
 * processes load) from the broker, so bench runs leave it as they found it. The consumers
 * come from a kernel booted here with the installation's environment, as the CLI boots
 * one (loaded lazily: the API servers' children import this module too).
 */
export async function removeInstallationTopology(env: NodeJS.ProcessEnv): Promise<void> {
  if (!env.AMQP_URL) return;
  const { Kernel } = require('../../core/kernel/kernel') as typeof import('../../core/kernel/kernel');
  const { removeBrokerTopology } = require('../../core/testing/broker-topology') as typeof import('../../core/testing/broker-topology');
  const kernel = await Kernel.boot({ role: 'cli', env: { ...env, LOG_LEVEL: 'error' }, migrate: false });
  try {
    await removeBrokerTopology(kernel);
  } finally {
    await kernel.stop();
  }
}
