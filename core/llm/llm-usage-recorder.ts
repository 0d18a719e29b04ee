import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logging/logger';
import type { TokenUsage } from './llm-types';
import { newUuid } from '../data/uuid';
import { boundQuery } from '../data/bound-query';
import { preparedStatement } from '../data/prepared-statements';
import type { LlmCallStatus } from './llm-usage.entity';

export interface UsageEntry {
  tenantUuid: string | null;
  provider: string;
  model: string | null;
  purpose: string | null;
  agentUuid?: string | null;
  usage: TokenUsage | undefined;
  durationMs: number;
  status: LlmCallStatus;
}

/** A batch of usage rows, written for every model call: prepared; llm_usage has no tenant policy (its tenant may be none). */
const INSERT_USAGE = preparedStatement(
  'llm.usage-insert',
  'insert into llm_usage (uuid, tenant_uuid, provider, model, purpose, agent_uuid, prompt_tokens, completion_tokens, total_tokens, duration_ms, status, created_at) ' +
    'select * from jsonb_to_recordset($1::jsonb) as r(uuid uuid, tenant_uuid uuid, provider text, model text, purpose text, agent_uuid uuid, ' +
    'prompt_tokens int, completion_tokens int, total_tokens int, duration_ms int, status text, created_at timestamptz)',
  { tenantNeutral: true },
);

/** An entry as queued: stamped when the call ended, not when its row is written. */
type Queued = UsageEntry & { at: Date };

/** Rows a single INSERT takes at most; more wait for the next one. */
const MAX_BATCH = 500;

/**
 * Writes one `llm_usage` row per call, on an EntityManager forked from the global one,
 * never the caller's: a request that rolls back still leaves the record of what its
 * calls cost.
 *
 * The write is not awaited by the call. A caller inside a transaction holds a pool
 * connection while it waits; if it also waited for a second connection for the
 * usage row, enough concurrent callers would take the whole pool and stall each
 * other until the pool's timeout.
 *
 * One write is in flight at a time, and the calls that end meanwhile go into the next
 * one, a multi-row INSERT: an idle process writes each row at once, a busy one (fifty
 * conversations, two model calls a turn) writes a statement per batch instead of a
 * transaction per call. `flush()` waits until every row recorded so far is written
 * (shutdown calls it before closing the pool; tests call it before reading usage).
 */
export class LlmUsageRecorder {
  private queued: Queued[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  record(entry: UsageEntry): void {
    this.queued.push({ ...entry, at: new Date() });
    this.writing ??= this.drain();
  }

  /** Resolves once every usage row recorded so far is written (or has failed and been logged). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0, MAX_BATCH);
        // One row the database refuses (its tenant deleted meanwhile) must not take the others with it: then one by one.
        if (batch.length > 1 && (await this.write(batch).then(() => true, () => false))) continue;
        for (const entry of batch) {
          // A lost usage row must not fail the call it describes; the operator sees why it was lost.
          await this.write([entry]).catch((error) => void this.logger.warn('could not record LLM usage', { provider: entry.provider, model: entry.model, error: (error as Error).message }));
        }
      }
    } finally {
      this.writing = null;
    }
  }

  private async write(batch: Queued[]): Promise<void> {
    // `disableContextResolution`: a fork of the global EntityManager, not of the caller's (and its transaction).
    const em = this.orm.em.fork({ disableContextResolution: true });
    const rows = batch.map((entry) => ({
      uuid: newUuid(),
      tenant_uuid: entry.tenantUuid,
      provider: entry.provider,
      model: entry.model,
      purpose: entry.purpose,
      agent_uuid: entry.agentUuid ?? null,
      prompt_tokens: entry.usage?.promptTokens ?? null,
      completion_tokens: entry.usage?.completionTokens ?? null,
      total_tokens: entry.usage?.totalTokens ?? null,
      duration_ms: Math.round(entry.durationMs),
      status: entry.status,
      created_at: entry.at.toISOString(),
    }));
    await boundQuery(em, INSERT_USAGE, [JSON.stringify(rows)]);
  }
}
