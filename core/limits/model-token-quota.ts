import type { MikroORM } from '@mikro-orm/postgresql';
import { boundQuery } from '../data/bound-query';
import type { TokenUsage } from '../llm/llm-types';
import { ModelTokenQuotaExceededError } from './quota-errors';
import { quotaDefaults, quotaVersion } from './quotas';

interface Seen {
  day: string;
  limit: number;
  /** Tokens of the day in llm_usage when read, plus this process's calls since. */
  used: number;
  readAt: number;
  version: number;
}

/** How long a read of a tenant's daily usage is trusted: other processes' calls meanwhile are not seen. */
const FRESH_MS = 2_000;
const MAX_TENANTS = 10_000;

/**
 * `model_tokens_per_day`: llm.chat asks `check` before calling the model. Usage is the sum
 * of the day's `llm_usage` rows (UTC day, served by the (tenant_uuid, created_at) index),
 * read at most every 2 s per tenant and process, plus what this process's calls reported
 * since. So a tenant may go over by the calls already under way, and by what other processes
 * used in the last 2 s; it is stopped at the next call after. The read runs on the pool, not
 * in the caller's transaction (llm.chat has none to use) and holds its connection for one statement.
 */
export class ModelTokenQuota {
  private readonly seen = new Map<string, Seen>();
  private readonly reading = new Map<string, Promise<Seen>>();

  constructor(private readonly orm: MikroORM) {}

  async check(tenantUuid: string): Promise<void> {
    const day = new Date().toISOString().slice(0, 10);
    let entry = this.seen.get(tenantUuid);
    if (!entry || entry.day !== day || entry.version !== quotaVersion(this.orm.em) || Date.now() - entry.readAt > FRESH_MS) entry = await this.refresh(tenantUuid, day);
    if (entry.limit > 0 && entry.used >= entry.limit) throw new ModelTokenQuotaExceededError(entry.limit);
  }

  /** Adds a finished call's tokens to what this process knows of the day. */
  record(tenantUuid: string, usage: TokenUsage | undefined): void {
    const entry = this.seen.get(tenantUuid);
    if (entry && usage) entry.used += usage.totalTokens;
  }

  /** Concurrent calls of one tenant share one read. */
  private refresh(tenantUuid: string, day: string): Promise<Seen> {
    let reading = this.reading.get(tenantUuid);
    if (!reading) {
      reading = this.read(tenantUuid, day).finally(() => this.reading.delete(tenantUuid));
      this.reading.set(tenantUuid, reading);
    }
    return reading;
  }

  private async read(tenantUuid: string, day: string): Promise<Seen> {
    const em = this.orm.em.fork({ disableContextResolution: true });
    const version = quotaVersion(em);
    const [row] = await boundQuery<{ override: number | null; used: string | null }>(
      em,
      `select (select ("values"->>'model_tokens_per_day')::bigint from "tenant_quotas" where "tenant_uuid" = $1) as "override",
              (select sum("total_tokens") from "llm_usage" where "tenant_uuid" = $1 and "created_at" >= $2::date::timestamp at time zone 'UTC') as "used"`,
      [tenantUuid, day],
    );
    const limit = row.override === null ? quotaDefaults(em).model_tokens_per_day : Number(row.override);
    const entry: Seen = { day, limit, used: Number(row.used ?? 0), readAt: Date.now(), version };
    this.seen.delete(tenantUuid);
    if (this.seen.size >= MAX_TENANTS) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(tenantUuid, entry);
    return entry;
  }
}
