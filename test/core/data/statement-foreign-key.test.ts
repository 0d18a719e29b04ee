import { Client } from 'pg';
import { statementForeignKey } from '../../../core';
import { createTestDatabase } from '../../../core/testing';

/**
 * statementForeignKey keeps a foreign key's promises (no child without its parent, a
 * deleted parent takes its children, a parent in use cannot vanish under a writer)
 * while checking once per statement. On a real PostgreSQL: owners -> parents (a real
 * cascading key, as tenants are) -> children (the statement-level key).
 */
let database: { url: string; drop(): Promise<void> };
const clients: Client[] = [];
const P1 = '00000000-0000-7000-8000-000000000001';
const P2 = '00000000-0000-7000-8000-000000000002';
const MISSING = '00000000-0000-7000-8000-00000000dead';
const key = statementForeignKey({ table: 'children', column: 'parent_uuid', parent: 'parents' });

async function connect(): Promise<Client> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  clients.push(client);
  return client;
}

let db: Client;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await connect();
  await db.query('create table owners (id int primary key)');
  await db.query('create table parents (uuid uuid primary key, owner_id int not null references owners (id) on delete cascade)');
  await db.query('create table children (id serial primary key, parent_uuid uuid not null, note text)');
  for (const sql of key.up) await db.query(sql);
});
beforeEach(async () => {
  await db.query('truncate owners, parents, children');
  await db.query('insert into owners values (1), (2)');
  await db.query('insert into parents values ($1, 1), ($2, 2)', [P1, P2]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.end().catch(() => {})));
  await database?.drop();
});

/** Resolves once `client`'s statement waits on a lock (a fixed wait let a busy machine check before the statement even ran). */
async function waitingOnLock(client: Client): Promise<void> {
  const deadline = Date.now() + 10_000;
  const pid = (client as Client & { processID: number }).processID;
  while ((await db.query(`select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`, [pid])).rowCount === 0) {
    if (Date.now() > deadline) throw new Error('the statement never waited on a lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const children = async () => (await db.query('select parent_uuid, note from children order by id')).rows;
const failure = (promise: Promise<unknown>) => promise.then(() => null, (error) => error);

describe('statementForeignKey', () => {
  it('takes rows whose parents exist, in one statement of many', async () => {
    await db.query("insert into children (parent_uuid, note) select p, 'n' || n from unnest($1::uuid[]) with ordinality as x(p, n)", [[P1, P2, P1]]);
    expect(await children()).toEqual([
      { parent_uuid: P1, note: 'n1' },
      { parent_uuid: P2, note: 'n2' },
      { parent_uuid: P1, note: 'n3' },
    ]);
  });

  it('refuses a statement naming a missing parent with the foreign-key error, and writes none of its rows', async () => {
    const error = await failure(db.query('insert into children (parent_uuid) values ($1), ($2)', [P1, MISSING]));
    expect(error).toMatchObject({ code: '23503', constraint: 'children_parent_uuid_foreign', table: 'children' });
    expect(error.message).toBe('insert or update on table "children" violates foreign key constraint "children_parent_uuid_foreign"');
    expect(await children()).toEqual([]);
  });

  it('refuses an update that points a row at a missing parent', async () => {
    await db.query('insert into children (parent_uuid) values ($1)', [P1]);
    expect(await failure(db.query('update children set parent_uuid = $1', [MISSING]))).toMatchObject({ code: '23503' });
    await db.query("update children set note = 'kept'");
    expect(await children()).toEqual([{ parent_uuid: P1, note: 'kept' }]);
  });

  it('a deleted parent takes its children, and only its own, also through another key’s cascade', async () => {
    await db.query('insert into children (parent_uuid, note) values ($1, $2), ($3, $4)', [P1, 'one', P2, 'two']);
    await db.query('delete from parents where uuid = $1', [P1]);
    expect(await children()).toEqual([{ parent_uuid: P2, note: 'two' }]);
    await db.query('delete from owners where id = 2'); // cascades to parent P2, which cascades here
    expect(await children()).toEqual([]);
  });

  it('a parent named by an open transaction cannot be deleted under it: the delete waits, then takes the new row with it', async () => {
    const writer = await connect();
    const deleter = await connect();
    await writer.query('begin');
    await writer.query('insert into children (parent_uuid, note) values ($1, $2)', [P1, 'racing']);
    let deleted = false;
    const deleting = deleter.query('delete from parents where uuid = $1', [P1]).then(() => (deleted = true));
    await waitingOnLock(deleter);
    expect(deleted).toBe(false);
    await writer.query('commit');
    await deleting;
    expect(await children()).toEqual([]);
  });

  it('a child written while its parent is being deleted waits, then is refused', async () => {
    const writer = await connect();
    const deleter = await connect();
    await deleter.query('begin');
    await deleter.query('delete from parents where uuid = $1', [P1]);
    const writing = failure(writer.query('insert into children (parent_uuid) values ($1)', [P1]));
    await waitingOnLock(writer);
    await deleter.query('commit');
    expect(await writing).toMatchObject({ code: '23503' });
    expect(await children()).toEqual([]);
  });

  it('declares its triggers for the entities, named as the ORM names them, with the SQL that creates them', () => {
    expect(key.childTriggers.map((trigger) => [trigger.name, trigger.events])).toEqual([
      ['children_parent_uuid_foreign_insert', ['insert']],
      ['children_parent_uuid_foreign_update', ['update']],
    ]);
    expect(key.parentTriggers.map((trigger) => [trigger.name, trigger.events])).toEqual([['children_parent_uuid_foreign_cascade', ['delete']]]);
    expect(key.up).toEqual([...key.childTriggers, ...key.parentTriggers].map((trigger) => trigger.expression));
    expect(key.up[2]).toContain('create function "parents_children_parent_uuid_foreign_cascade_fn"()');
  });

  it('down removes the triggers and functions', async () => {
    const scratch = await connect();
    await scratch.query('begin');
    try {
      for (const sql of key.down) await scratch.query(sql);
      await scratch.query('insert into children (parent_uuid) values ($1)', [MISSING]);
      const { rows } = await scratch.query("select count(*)::int as n from pg_proc where proname like 'children_parent_uuid_foreign%'");
      expect(rows[0].n).toBe(0);
    } finally {
      await scratch.query('rollback');
    }
  });

  it('takes plain identifiers only (they are written into SQL)', () => {
    expect(() => statementForeignKey({ table: 'children; drop table x', column: 'parent_uuid', parent: 'parents' })).toThrow(/not a plain lower-case SQL identifier/);
  });
});
