import { ormPool } from '../../../core/data/orm-pool';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/** The pool's own settings (pg-pool keeps them in `options`). */
const poolOptions = (kit: TestKernel) => (ormPool(kit.kernel.orm.em) as unknown as { options: { min: number; max: number; idleTimeoutMillis: number } }).options;

describe('the ORM pool (DATABASE_POOL_MIN, DATABASE_POOL_MAX)', () => {
  let kits: TestKernel[] = [];
  afterEach(async () => {
    await Promise.all(kits.map((kit) => kit.stop()));
    kits = [];
  });

  it('keeps DATABASE_POOL_MIN connections from the idle timeout, at most the pool size', async () => {
    const kept = await startTestKernel({ plugins: [], config: { databasePoolMax: 4, databasePoolMin: 2 } });
    const capped = await startTestKernel({ plugins: [], config: { databasePoolMax: 3, databasePoolMin: 10 } });
    kits.push(kept, capped);
    // The pool exists from the first connection on.
    await kept.kernel.orm.em.fork().getConnection().execute('select 1');
    await capped.kernel.orm.em.fork().getConnection().execute('select 1');
    expect(poolOptions(kept)).toEqual(expect.objectContaining({ min: 2, max: 4, idleTimeoutMillis: 30_000 }));
    expect(poolOptions(capped)).toEqual(expect.objectContaining({ min: 3, max: 3 }));
  });
});
