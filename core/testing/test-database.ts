import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres } from '../data/embedded-postgres-module';

/**
 * Where test kernels get their databases: the server at TEST_DATABASE_URL or
 * DATABASE_URL when set (CI points it at the machine's PostgreSQL), otherwise an
 * embedded PostgreSQL started once for the test run. Each kernel gets a database of
 * its own, created empty and dropped when the kernel stops.
 */
export async function serverUrl(): Promise<string> {
  const given = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) return given;
  return (embedded ??= startEmbedded());
}

let embedded: Promise<string> | undefined;

/** Starts a throwaway embedded server for this process (the jest global setup shares one across workers). */
export async function startEmbedded(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pg-'));
  const port = 20000 + crypto.randomInt(20000);
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const stop = () => server.stop();
  stopEmbedded = stop;
  process.once('exit', () => {
    // Last resort when the runner exits without teardown: stop the postmaster by its pid.
    try {
      const pid = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGINT');
    } catch {
      /* already stopped */
    }
  });
  return `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
}

export let stopEmbedded: (() => Promise<void>) | undefined;

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = await serverUrl();
  const name = `sb_test_${crypto.randomBytes(6).toString('hex')}`;
  await withClient(server, (client) => client.query(`create database ${name}`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(server, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
