import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { PgListener } from '../../../core/data/pg-listener';
import { createTestDatabase } from '../../../core/testing/test-database';

let database: { url: string; drop(): Promise<void> };
let admin: Client;

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await database?.drop();
});

/** The backends of this database that last ran a LISTEN: the listener's connections. */
async function listeningBackends(): Promise<number[]> {
  const { rows } = await admin.query(`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen %'`);
  return rows.map((row) => row.pid);
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('PgListener', () => {
  it('listens on several channels over one connection, hands each notification to its channel, and closes with the last subscription', async () => {
    const listener = new PgListener(database.url);
    const heard: Record<string, string[]> = { first: [], second: [] };
    const reconnects = { first: 0, second: 0 };
    try {
      const stopFirst = await listener.subscribe('sb_first', (payload) => heard.first.push(payload), () => reconnects.first++);
      await until(() => reconnects.first === 1, 'the first LISTEN');
      const stopSecond = await listener.subscribe('sb_second', (payload) => heard.second.push(payload), () => reconnects.second++);
      expect(reconnects.second).toBe(1);
      expect(await listeningBackends()).toHaveLength(1);

      await admin.query(`select pg_notify('sb_first', 'a'), pg_notify('sb_second', 'b'), pg_notify('sb_other', 'c')`);
      await until(() => heard.first.length === 1 && heard.second.length === 1, 'both notifications');
      expect(heard).toEqual({ first: ['a'], second: ['b'] });

      await stopFirst();
      await admin.query(`select pg_notify('sb_first', 'gone'), pg_notify('sb_second', 'still')`);
      await until(() => heard.second.length === 2, 'the second channel');
      expect(heard.first).toEqual(['a']);

      await stopSecond();
      await until(async () => (await listeningBackends()).length === 0, 'the connection to close');
    } finally {
      await listener.close();
    }
  });

  it('reconnects after losing its connection, LISTENs again on every channel and lets each subscriber catch up', async () => {
    const listener = new PgListener(database.url);
    const heard: string[] = [];
    const reconnects = { first: 0, second: 0 };
    try {
      await listener.subscribe('sb_first', (payload) => heard.push(`first:${payload}`), () => reconnects.first++);
      await listener.subscribe('sb_second', (payload) => heard.push(`second:${payload}`), () => reconnects.second++);
      await until(() => reconnects.first === 1 && reconnects.second === 1, 'the first connection');
      const [pid] = await listeningBackends();
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await until(() => reconnects.first === 2 && reconnects.second === 2, 'the reconnection');
      const backends = await listeningBackends();
      expect(backends).toHaveLength(1);
      expect(backends[0]).not.toBe(pid);
      await admin.query(`select pg_notify('sb_first', 'x'), pg_notify('sb_second', 'y')`);
      await until(() => heard.length === 2, 'notifications after the reconnection');
      expect(heard.sort()).toEqual(['first:x', 'second:y']);
    } finally {
      await listener.close();
    }
    await until(async () => (await listeningBackends()).length === 0, 'the connection to close');
  });

  it('refuses a second subscription to one channel', async () => {
    const listener = new PgListener(database.url);
    try {
      await listener.subscribe('sb_first', () => {});
      await expect(listener.subscribe('sb_first', () => {})).rejects.toThrow('already has a listener');
    } finally {
      await listener.close();
    }
  });
});
