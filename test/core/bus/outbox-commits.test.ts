import { startTestKernel, type TestKernel } from '../../../core/testing';
import { OutboxCommits } from '../../../core/bus/outbox-commits';

/** When the relay is woken: after the outermost transaction that wrote outbox rows commits, never before, never for a rollback. */
describe('OutboxCommits', () => {
  let kit: TestKernel;
  let commits: OutboxCommits;
  let woken = 0;
  beforeAll(async () => {
    kit = await startTestKernel({ role: 'cli' });
    commits = new OutboxCommits(() => woken++);
    kit.kernel.orm.em.getEventManager().registerSubscriber(commits);
  });
  afterAll(() => kit?.stop());
  beforeEach(() => {
    woken = 0;
  });
  const em = () => kit.kernel.orm.em.fork();

  it('wakes once the writing transaction has committed', async () => {
    await em().transactional(async (tx) => {
      commits.noteWrite(tx);
      commits.noteWrite(tx);
      expect(woken).toBe(0);
    });
    expect(woken).toBe(1);
  });

  it('does not wake for a transaction that wrote nothing, nor for one rolled back', async () => {
    await em().transactional(async () => {});
    await expect(
      em().transactional(async (tx) => {
        commits.noteWrite(tx);
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    expect(woken).toBe(0);
  });

  it('a write in a savepoint (nested transactional) wakes when the outermost transaction commits, not when the savepoint is released', async () => {
    await em().transactional(async (tx) => {
      await tx.transactional(async (inner) => {
        await inner.transactional(async (innermost) => {
          expect(innermost.getTransactionContext()).toHaveProperty('savepointName');
          commits.noteWrite(innermost);
        });
        expect(woken).toBe(0);
      });
      expect(woken).toBe(0);
    });
    expect(woken).toBe(1);
  });

  it('a write outside any transaction has committed already', async () => {
    commits.noteWrite(em());
    expect(woken).toBe(1);
  });

  it('the outbox has no insert trigger any more (its NOTIFY serialized publishing commits)', async () => {
    const triggers = await em().getConnection().execute(`select tgname from pg_trigger where tgrelid = 'bus_outbox'::regclass and not tgisinternal`);
    expect(triggers).toEqual([]);
  });
});
