import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logging/logger';
import type { TokenUsage } from './llm-types';
import { LlmUsage, type LlmCallStatus } from './llm-usage.entity';

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

/**
 * Writes one `llm_usage` row per call, each in its own short transaction on an
 * EntityManager forked from the global one, never the caller's: a request that rolls
 * back still leaves the record of what its calls cost.
 *
 * The write is not awaited by the call. A caller inside a transaction holds a pool
 * connection while it waits; if it also waited for a second connection for the
 * usage row, enough concurrent callers would take the whole pool and stall each
 * other until the pool's timeout. `flush()` waits for the writes still under way
 * (shutdown calls it before closing the pool; tests call it before reading usage).
 */
export class LlmUsageRecorder {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  record(entry: UsageEntry): void {
    const write = this.write(entry)
      // A lost usage row must not fail the call it describes; the operator sees why it was lost.
      .catch((error) => void this.logger.warn('could not record LLM usage', { provider: entry.provider, model: entry.model, error: (error as Error).message }))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves once every usage row recorded so far is written (or has failed and been logged). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private async write(entry: UsageEntry): Promise<void> {
    // `disableContextResolution`: a fork of the global EntityManager, not of the caller's (and its transaction).
    const em = this.orm.em.fork({ disableContextResolution: true });
    em.create(LlmUsage, {
      tenantUuid: entry.tenantUuid,
      provider: entry.provider,
      model: entry.model,
      purpose: entry.purpose,
      agentUuid: entry.agentUuid ?? null,
      promptTokens: entry.usage?.promptTokens ?? null,
      completionTokens: entry.usage?.completionTokens ?? null,
      totalTokens: entry.usage?.totalTokens ?? null,
      durationMs: entry.durationMs,
      status: entry.status,
    });
    await em.flush();
  }
}
