import path from 'node:path';
import { boundQuery } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { ormPool } from '../../../core/data/orm-pool';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [NOTES] });
  for (const title of ['alpha', 'beta', 'gamma']) await kit.api.post('/api/v1/notes').send({ title }).expect(201);
});
afterAll(() => kit?.stop());

describe('boundQuery', () => {
  it('binds values apart from the text: an array as an array, quotes and backslashes as they are', async () => {
    const em = kit.kernel.orm.em.fork();
    const rows = await boundQuery<{ title: string }>(em, 'select title from example_notes where tenant_uuid = $1 and title = any($2::text[]) order by title', [
      kit.tenant.uuid,
      ['gamma', 'alpha', "o'brien", 'back\\slash', '"quoted"'],
    ]);
    expect(rows.map((row) => row.title)).toEqual(['alpha', 'gamma']);
    const [echo] = await boundQuery<{ a: string[]; j: unknown }>(em, 'select $1::text[] as a, $2::jsonb as j', [["o'brien", 'back\\slash', '{x}', 'a,b'], JSON.stringify({ k: [1, 'two'] })]);
    expect(echo).toEqual({ a: ["o'brien", 'back\\slash', '{x}', 'a,b'], j: { k: [1, 'two'] } });
  });

  it("runs in the EntityManager's transaction: what it wrote goes with a rollback", async () => {
    const em = kit.kernel.orm.em.fork();
    await expect(
      em.transactional(async (tx) => {
        await boundQuery(tx, 'update example_notes set body = $1 where tenant_uuid = $2', ['inside', kit.tenant.uuid]);
        const [seen] = await boundQuery<{ n: number }>(tx, 'select count(*)::int as n from example_notes where tenant_uuid = $1 and body = $2', [kit.tenant.uuid, 'inside']);
        expect(seen.n).toBe(3);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const [after] = await boundQuery<{ n: number }>(em, 'select count(*)::int as n from example_notes where tenant_uuid = $1 and body = $2', [kit.tenant.uuid, 'inside']);
    expect(after.n).toBe(0);
  });

  it("goes to the ORM's pool directly outside a transaction, and through the transaction inside one", async () => {
    const em = kit.kernel.orm.em.fork();
    const pool = ormPool(em)!;
    expect(pool).toBeDefined();
    const spy = jest.spyOn(pool, 'query');
    try {
      const [outside] = await boundQuery<{ n: number }>(em, 'select $1::int as n', [41]);
      expect(outside.n).toBe(41);
      expect(spy.mock.calls.filter(([text]) => (typeof text === 'string' ? text : (text as { text: string }).text) === 'select $1::int as n')).toHaveLength(1);
      await em.transactional(async (tx) => {
        const [inside] = await boundQuery<{ n: number }>(tx, 'select $1::int as n', [42]);
        expect(inside.n).toBe(42);
      });
      expect(spy.mock.calls.filter(([text]) => (typeof text === 'string' ? text : (text as { text: string }).text) === 'select $1::int as n')).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('logs through the ORM’s query logger, failures included', async () => {
    const logger = kit.kernel.orm.config.getLogger();
    const spy = jest.spyOn(logger, 'logQuery');
    try {
      const em = kit.kernel.orm.em.fork();
      await boundQuery(em, 'select $1::int as one', [1]);
      await expect(boundQuery(em, 'select * from no_such_table where x = $1', [1])).rejects.toThrow(/no_such_table/);
      // Only these two: background work (the bus relay) logs meanwhile.
      const ours = spy.mock.calls.filter(([context]) => /as one|no_such_table/.test(String(context.query)));
      expect(ours.map(([context]) => [context.query, context.level])).toEqual([
        ['select $1::int as one', 'info'],
        ['select * from no_such_table where x = $1', 'error'],
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
