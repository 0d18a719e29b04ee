import type { Pool } from 'pg';
import { copyOut, type CopyOutReader } from '../../../../plugins/conversations/export/copy-out';
import { startTestKernel, type TestKernel } from '../../../../core/testing';

let kit: TestKernel;
let pool: Pool;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [] });
  pool = await kit.kernel.orm.em.getConnection().getNativeClient();
});
afterAll(() => kit?.stop());

/** copyOut on a client of the pool, which is released afterwards. */
async function run<T>(statement: string, reader: CopyOutReader<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await copyOut(client, statement, reader);
  } finally {
    client.release();
  }
}

/** A reader that keeps each row as text (copied: the bytes are only lent), and whether it was abandoned. */
function lines(): CopyOutReader<string[]> & { abandoned: boolean } {
  const rows: string[] = [];
  return {
    abandoned: false,
    row(bytes) {
      expect(bytes[bytes.length - 1]).toBe(10);
      rows.push(bytes.toString('utf8', 0, bytes.length - 1));
    },
    end: () => rows,
    abandon() {
      this.abandoned = true;
    },
  };
}

describe('copyOut', () => {
  it('hands over every row, in order, one at a time', async () => {
    const rows = await run(`copy (select i, repeat('x', 200) from generate_series(1, 10000) as i) to stdout`, lines());
    expect(rows).toHaveLength(10000);
    expect(rows[0]).toBe(`1\t${'x'.repeat(200)}`);
    expect(rows[9999]).toBe(`10000\t${'x'.repeat(200)}`);
  });

  it('gives each of several reads at the same time its own rows', async () => {
    const statement = (n: number) => `copy (select ${n}, i, pg_sleep(0) from generate_series(1, 3000) as i) to stdout`;
    const results = (await Promise.all([1, 2, 3, 4, 5, 6].map((n) => run(statement(n), lines())))).map((rows) => rows.map((row) => row.split('\t')[0]));
    results.forEach((values, index) => {
      expect(values).toHaveLength(3000);
      expect(new Set(values)).toEqual(new Set([String(index + 1)]));
    });
  });

  it('rejects with PostgreSQL`s error, and the client can run the next statement', async () => {
    const client = await pool.connect();
    try {
      const reader = lines();
      await expect(copyOut(client, `copy (select 1 / (i - 3) from generate_series(1, 5) as i) to stdout`, reader)).rejects.toMatchObject({ code: '22012' });
      expect(reader.abandoned).toBe(true);
      await expect(copyOut(client, `copy (select 'still here') to stdout`, lines())).resolves.toEqual(['still here']);
    } finally {
      client.release();
    }
  });

  it('refuses a statement that is not a COPY TO, and the client can run the next one', async () => {
    const client = await pool.connect();
    try {
      await expect(copyOut(client, 'select 1', lines())).rejects.toThrow('not a COPY ... TO STDOUT');
      await client.query('create temporary table copy_out_target (value int)');
      await expect(copyOut(client, 'copy copy_out_target from stdin', lines())).rejects.toThrow('is a COPY FROM');
      expect((await client.query('select count(*)::int as n from copy_out_target')).rows).toEqual([{ n: 0 }]);
      await expect(copyOut(client, `copy (select 2) to stdout`, lines())).resolves.toEqual(['2']);
    } finally {
      client.release();
    }
  });

  it('rejects with what the reader throws, after the server is done sending, and the client can run the next statement', async () => {
    const client = await pool.connect();
    try {
      const rowsSeen: number[] = [];
      const failing = { ...lines(), row: (bytes: Buffer) => {
        rowsSeen.push(Number(bytes.toString('utf8').trim()));
        if (rowsSeen.length === 2) throw new Error('cannot use it');
      } };
      await expect(copyOut(client, `copy (select i from generate_series(1, 1000) as i) to stdout`, failing)).rejects.toThrow('cannot use it');
      expect(rowsSeen).toEqual([1, 2]);
      await expect(copyOut(client, `copy (select 3) to stdout`, lines())).resolves.toEqual(['3']);
      const failingEnd = { ...lines(), end: () => { throw new Error('no result'); } };
      await expect(copyOut(client, `copy (select 4) to stdout`, failingEnd)).rejects.toThrow('no result');
    } finally {
      client.release();
    }
  });
});
