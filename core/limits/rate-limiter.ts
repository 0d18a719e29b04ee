import { createHash } from 'node:crypto';
import type { Logger } from '../logging/logger';
import type { BucketSpec, RateBuckets } from './rate-buckets';

/** The answer for one request against one bucket. */
export interface RateDecision {
  allowed: boolean;
  /** The bucket's size, for `RateLimit-Limit`. */
  limit: number;
  /** Seconds until a request may succeed again (`Retry-After`); 0 when allowed. */
  retryAfter: number;
  /** Seconds until the shared bucket is full again, as last seen (`RateLimit-Reset`). */
  reset: number;
}

/** The local state of one key: the tokens this process holds, and what it last learned of the shared bucket. */
interface Entry {
  dbKey: string;
  /** Tokens leased to this process and not yet spent. */
  held: number;
  /** A lease under way: requests arriving meanwhile wait for it rather than start another. */
  leasing?: Promise<void>;
  /** While the shared bucket is known to be empty (Date.now() ms), requests are refused without asking it. */
  emptyUntil: number;
  /** The shared bucket's tokens after the last lease, and when that was (Date.now() ms). */
  sharedTokens: number;
  leasedAt: number;
}

/** The part of a lease that each process takes at once: 10% of the burst (at least 1). */
export const LEASE_FRACTION = 0.1;

export function leaseSize(burst: number): number {
  return Math.max(1, Math.floor(burst * LEASE_FRACTION));
}

/**
 * Token buckets shared by every process through PostgreSQL (rate-buckets.ts), spent locally.
 *
 * A process takes a LEASE of `leaseSize(burst)` tokens from the shared bucket with one
 * statement and spends it in memory; only when its lease is spent does it go back to the
 * database (requests meanwhile for the same key wait for that one lease). So a request costs
 * a Map lookup, and one in `leaseSize` requests a round trip that holds no other connection.
 *
 * How exact: the shared bucket never hands out more than `burst + rps * t` tokens over any
 * `t`, but tokens leased and not yet spent live on in their process, so the requests admitted
 * over a window exceed that by at most what the processes held when it began: N processes x
 * leaseSize. Held tokens a process never spends are lost (errs on the side of refusing).
 * While a bucket is empty, each process refuses locally until one token will have refilled.
 *
 * Bounded memory: at most `maxKeys` keys, the least recently leased dropped first (with
 * whatever tokens they held).
 */
export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private lastFailureLog = 0;

  constructor(
    private readonly buckets: RateBuckets,
    private readonly maxKeys: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Spends one token of `key`'s bucket. Synchronous (no promise) while this process holds
   * tokens or knows the bucket is empty: the common case costs no allocation.
   */
  take(key: string, spec: BucketSpec): RateDecision | Promise<RateDecision> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { dbKey: dbKeyOf(key), held: 0, emptyUntil: 0, sharedTokens: spec.burst, leasedAt: 0 };
      this.remember(key, entry);
    }
    if (entry.held >= 1) {
      entry.held--;
      return ALLOWED;
    }
    const now = Date.now();
    if (entry.emptyUntil > now) return refused(spec, entry, now);
    return this.takeAfterLease(key, entry, spec);
  }

  private async takeAfterLease(key: string, entry: Entry, spec: BucketSpec): Promise<RateDecision> {
    // Another request may spend what a lease brought before this one gets to it: then lease again.
    for (;;) {
      entry.leasing ??= this.lease(key, entry, spec).finally(() => (entry.leasing = undefined));
      await entry.leasing;
      if (entry.held >= 1) {
        entry.held--;
        return ALLOWED;
      }
      const now = Date.now();
      if (entry.emptyUntil > now) return refused(spec, entry, now);
    }
  }

  private async lease(key: string, entry: Entry, spec: BucketSpec): Promise<void> {
    try {
      const { granted, tokens } = await this.buckets.lease(entry.dbKey, spec, leaseSize(spec.burst));
      entry.held += granted;
      entry.sharedTokens = tokens;
      entry.leasedAt = Date.now();
      // Empty: nobody gets a token before one has refilled, so no process need ask before then.
      if (granted === 0) entry.emptyUntil = entry.leasedAt + Math.max(1, ((1 - tokens) / spec.rps) * 1000);
      this.remember(key, entry);
    } catch (error) {
      // The database unreachable: let the request through (it fails on its own if it needs the database) rather than refuse everyone.
      entry.held += 1;
      const now = Date.now();
      if (now - this.lastFailureLog > 10_000) {
        this.lastFailureLog = now;
        this.logger.warn('rate limiter could not lease tokens; requests pass unlimited meanwhile', { error: (error as Error).message });
      }
    }
  }

  /** Marks `key` the most recently leased, dropping the oldest keys past `maxKeys`. */
  private remember(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxKeys) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Keys tracked in memory (tests). */
  get size(): number {
    return this.entries.size;
  }
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, limit: 0, retryAfter: 0, reset: 0 });

function refused(spec: BucketSpec, entry: Entry, now: number): RateDecision {
  const tokens = Math.min(spec.burst, entry.sharedTokens + ((now - entry.leasedAt) / 1000) * spec.rps);
  return {
    allowed: false,
    limit: spec.burst,
    retryAfter: Math.max(1, Math.ceil((entry.emptyUntil - now) / 1000)),
    reset: Math.max(1, Math.ceil((spec.burst - tokens) / spec.rps)),
  };
}

/** Keys may carry secrets (a bearer token) or be long (a hook's path): the database sees a digest. */
function dbKeyOf(key: string): string {
  const colon = key.indexOf(':');
  return `${key.slice(0, colon)}:${createHash('sha256').update(key).digest('base64url')}`;
}
