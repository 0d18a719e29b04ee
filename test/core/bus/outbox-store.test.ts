import type { EntityManager } from '@mikro-orm/postgresql';
import { REPLACE_DUE_IN } from '../../../core/bus/outbox-store';
import { startTestKernel, type TestKernel } from '../../../core/testing';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [] });
});
afterAll(() => kit?.stop());

describe('the outbox store', () => {
  it('finds the pending message a keyed one replaces by an index, not by a scan of the whole outbox', async () => {
    // The outbox holds every session's idle timer: a scan per customer message grew with the open sessions.
    const plan = await kit.kernel.orm.em.fork().transactional(async (tx) => {
      const run = (sql: string) => (tx as EntityManager).getConnection().execute(sql, [], 'all', tx.getTransactionContext());
      // However small the table is here, the planner is to use the index when there is one.
      await run('set local enable_seqscan = off');
      await run(`prepare replace_probe as ${REPLACE_DUE_IN.text}`);
      const [row] = await run(
        "explain (format json) execute replace_probe(gen_random_uuid(), gen_random_uuid(), 'probe.keyed', '{}', '{}', null, 'session:1', null, 1, 0)",
      );
      await run('deallocate replace_probe');
      return JSON.stringify(row['QUERY PLAN']);
    });
    expect(plan).toContain('bus_outbox_topic_dedupe_key_index');
  });
});
