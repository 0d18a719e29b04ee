import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery } from '../data/bound-query';

/** What one lease took from a shared bucket. */
export interface Lease {
  /** Whole tokens handed to this process (0: the bucket is empty). */
  granted: number;
  /** What is left in the shared bucket after the lease. */
  tokens: number;
}

export interface BucketSpec {
  /** Tokens added per second. */
  rps: number;
  /** The bucket's size: the most requests in a burst. */
  burst: number;
}

/**
 * One statement does the whole lease, atomically per key: create the bucket full, or refill
 * it by the time elapsed since its last lease (never past `burst`), then take up to `want`
 * whole tokens. Every SET expression reads the row as it was, so `granted` is computed
 * from the same refilled amount as `tokens`. `greatest(updated_at, now())`: a statement that
 * waited on another's row lock has an older now(); time must not run backwards.
 */
const LEASE_SQL = `
insert into "rate_buckets" as b ("key", "tokens", "updated_at", "granted")
values ($1, $3::float8 - least($4::int, floor($3::float8)), now(), least($4::int, floor($3::float8)))
on conflict ("key") do update set
  "granted" = least($4::int, floor(least($3::float8, b."tokens" + greatest(0, extract(epoch from now() - b."updated_at")) * $2::float8)))::int,
  "tokens" = least($3::float8, b."tokens" + greatest(0, extract(epoch from now() - b."updated_at")) * $2::float8)
    - least($4::int, floor(least($3::float8, b."tokens" + greatest(0, extract(epoch from now() - b."updated_at")) * $2::float8))),
  "updated_at" = greatest(b."updated_at", now())
returning "granted", "tokens"`;

/** The shared token buckets in PostgreSQL (`rate_buckets`, UNLOGGED) that every process leases from. */
export class RateBuckets {
  constructor(private readonly fork: () => EntityManager) {}

  async lease(key: string, spec: BucketSpec, want: number): Promise<Lease> {
    const [row] = await boundQuery<{ granted: number; tokens: number }>(this.fork(), LEASE_SQL, [key, spec.rps, spec.burst, want]);
    return { granted: Number(row.granted), tokens: Number(row.tokens) };
  }
}

/**
 * A bucket untouched for a day is full again for any rate of at least BURST per day, so its
 * row can go (a key's next lease creates it full): keeps `rate_buckets` to the keys in use.
 */
export const IDLE_BUCKET = '1 day';

export async function pruneIdleBuckets(em: EntityManager): Promise<number> {
  const rows = await boundQuery(em, `delete from "rate_buckets" where "updated_at" < now() - interval '${IDLE_BUCKET}' returning 1`);
  return rows.length;
}

/** Prunes idle buckets hourly, in the processes that serve HTTP (several doing it at once is harmless). */
export class BucketPruner {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    const prune = async () => {
      await pruneIdleBuckets(this.fork()).catch(this.onError);
      this.schedule(prune, 60 * 60 * 1000);
    };
    this.schedule(prune, 60_000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(fn: () => void, ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(fn, ms);
    this.timer.unref();
  }
}
