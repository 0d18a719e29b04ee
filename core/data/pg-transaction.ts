import type { Pool, PoolClient } from 'pg';

/**
 * `work` in a transaction of one client of a bare `pg` pool (outside the ORM: secrets
 * rotation, the benches' floors): committed when it returns, rolled back when it throws,
 * the client given back either way.
 */
export async function inPgTransaction<T>(pool: Pick<Pool, 'connect'>, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
