import { boundQuery, preparedStatement } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const ECHO = preparedStatement('test.echo-pair', 'select $1::text as text, $2::int + 1 as next');
// Two names that PostgreSQL would cut to the same 63 bytes.
const LONG_PREFIX = `test.${'x'.repeat(70)}`;
const LONG_A = preparedStatement(`${LONG_PREFIX}.a`, "select 'a' as which, $1::int as n");
const LONG_B = preparedStatement(`${LONG_PREFIX}.b`, "select 'b' as which, $1::int as n");

/** What the connection of `tx` holds prepared, by name. */
async function preparedOnConnection(tx: Parameters<typeof boundQuery>[0]): Promise<Map<string, string>> {
  const rows = await boundQuery<{ name: string; statement: string }>(tx, 'select name, statement from pg_prepared_statements');
  return new Map(rows.map((row) => [row.name, row.statement]));
}

describe('prepared statements', () => {
  it('refuses one name declared with two texts, and accepts the same declaration twice', () => {
    expect(preparedStatement('test.echo-pair', 'select $1::text as text, $2::int + 1 as next')).toEqual(ECHO);
    expect(() => preparedStatement('test.echo-pair', 'select 1')).toThrow(/"test.echo-pair" is declared twice/);
  });

  describe('on (the default)', () => {
    let kit: TestKernel;
    beforeAll(async () => {
      kit = await startTestKernel();
    });
    afterAll(() => kit?.stop());

    it('runs a declared statement under its name on the connection, with the same results as plain text', async () => {
      await kit.kernel.orm.em.fork().transactional(async (tx) => {
        expect(await boundQuery(tx, ECHO, ["o'brien", 41])).toEqual([{ text: "o'brien", next: 42 }]);
        expect(await boundQuery(tx, ECHO, ['second', 1])).toEqual([{ text: 'second', next: 2 }]);
        const prepared = await preparedOnConnection(tx);
        expect(prepared.get('test.echo-pair')).toBe(ECHO.text);
        // Text that was not declared is not kept.
        await boundQuery(tx, 'select $1::int as undeclared', [1]);
        expect([...(await preparedOnConnection(tx)).values()].some((text) => text.includes('undeclared'))).toBe(false);
      });
    });

    it('keeps two long names apart that the server would cut to the same 63 bytes', async () => {
      await kit.kernel.orm.em.fork().transactional(async (tx) => {
        expect(await boundQuery(tx, LONG_A, [1])).toEqual([{ which: 'a', n: 1 }]);
        expect(await boundQuery(tx, LONG_B, [2])).toEqual([{ which: 'b', n: 2 }]);
        const prepared = [...(await preparedOnConnection(tx))].filter(([, text]) => text === LONG_A.text || text === LONG_B.text);
        expect(prepared).toHaveLength(2);
        expect(prepared.every(([name]) => Buffer.byteLength(name) <= 63 && name.startsWith('test.xxx'))).toBe(true);
      });
    });

    it('reports a failing statement as the error it is, and the connection goes on', async () => {
      await expect(kit.kernel.orm.em.fork().transactional((tx) => boundQuery(tx, ECHO, ['x', 'not a number']))).rejects.toThrow(/invalid input syntax for type integer/);
      expect(await boundQuery(kit.kernel.orm.em.fork(), ECHO, ['after', 0])).toEqual([{ text: 'after', next: 1 }]);
    });
  });

  describe('off (DATABASE_PREPARED_STATEMENTS=false)', () => {
    let kit: TestKernel;
    beforeAll(async () => {
      kit = await startTestKernel({ config: { databasePreparedStatements: false } });
    });
    afterAll(() => kit?.stop());

    it('sends a declared statement as plain text: nothing is prepared', async () => {
      await kit.kernel.orm.em.fork().transactional(async (tx) => {
        expect(await boundQuery(tx, ECHO, ['plain', 1])).toEqual([{ text: 'plain', next: 2 }]);
        expect((await preparedOnConnection(tx)).has('test.echo-pair')).toBe(false);
      });
    });
  });
});
