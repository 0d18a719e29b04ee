import type { MikroORM } from '@mikro-orm/postgresql';
import { Gauge, type Registry } from 'prom-client';
import { ormPool } from '../data/orm-pool';
import type { Logger } from '../logging/logger';

/** The counters of a `pg` Pool (orm-pool.ts's PgPool has only what the queries need). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** A scrape waits no longer than this for the outbox count (a wait for a pool connection included). */
export const OUTBOX_COUNT_TIMEOUT_MS = 2000;

/** The pool's use, read on each scrape (absent until the pool's first connection). */
export function registerPoolMetrics(registry: Registry, orm: MikroORM, poolMax: number): void {
  const gauge = (name: string, help: string, read: (pool: PoolCounts) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const pool = ormPool(orm.em) as unknown as PoolCounts | undefined;
        if (pool) this.set(read(pool));
        else this.reset();
      },
    });
  gauge('switchboard_db_pool_connections', 'Connections the database pool holds, busy or idle', (pool) => pool.totalCount);
  gauge('switchboard_db_pool_idle_connections', 'Connections of the pool idle', (pool) => pool.idleCount);
  gauge('switchboard_db_pool_waiting_requests', 'Queries waiting for a pool connection (above 0 for long: the pool is too small or held too long)', (pool) => pool.waitingCount);
  new Gauge({ name: 'switchboard_db_pool_max_connections', help: 'The pool size (DATABASE_POOL_MAX)', registers: [registry] }).set(poolMax);
}

/**
 * Outbox rows by state: `due` (waiting for a relay: a backlog when it grows) and
 * `scheduled` (delayed messages and retries, due later). One count per scrape, under a
 * statement timeout on the server and a timeout here; when it fails or takes too long
 * the gauge is absent from that scrape rather than stale. Every process reports the
 * same table, so aggregate with max(), not sum().
 */
export function registerOutboxMetrics(registry: Registry, orm: MikroORM, logger: Logger): void {
  new Gauge({
    name: 'switchboard_bus_outbox_depth',
    help: 'Messages in the outbox: due (waiting for the relay) or scheduled (delayed, due later)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      try {
        const counts = await withTimeout(countOutbox(orm), OUTBOX_COUNT_TIMEOUT_MS);
        this.set({ state: 'due' }, counts.due);
        this.set({ state: 'scheduled' }, counts.scheduled);
      } catch (error) {
        this.reset();
        logger.warn('counting the outbox for /metrics failed', { error: String(error) });
      }
    },
  });
}

async function countOutbox(orm: MikroORM): Promise<{ due: number; scheduled: number }> {
  return orm.em.fork().transactional(async (tx) => {
    const connection = tx.getConnection();
    const context = tx.getTransactionContext();
    await connection.execute(`set local statement_timeout = ${OUTBOX_COUNT_TIMEOUT_MS}`, [], 'run', context);
    const [row]: any[] = await connection.execute(
      'select count(*) filter (where due_at <= clock_timestamp())::int as due, count(*) filter (where due_at > clock_timestamp())::int as scheduled from bus_outbox',
      [],
      'all',
      context,
    );
    return { due: row.due, scheduled: row.scheduled };
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // The query may still finish after the timeout; its result, or its error, is dropped.
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
