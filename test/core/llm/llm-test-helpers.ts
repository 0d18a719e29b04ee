import type { MikroORM } from '@mikro-orm/postgresql';
import { createEgress, type Egress } from '../../../core/egress';
import { createOrm } from '../../../core/data/orm';
import { createOpenAiCompatibleProvider, type LlmConfig, type OpenAiCompatibleProviderOptions } from '../../../core/llm';
import { LlmUsage } from '../../../core/llm/llm-usage.entity';
import type { Logger } from '../../../core/logging/logger';
import { ApiToken } from '../../../core/tenancy/api-token.entity';
import { Tenant } from '../../../core/tenancy/tenant.entity';
import { createTestDatabase } from '../../../core/testing';
import { Migration0001Tenancy } from '../../../migrations/0001-tenancy';
import { Migration0003LlmUsage } from '../../../migrations/0003-llm-usage';
import { captureLogger } from '../../../core/testing/capture-logger';
export { captureLogger };

/** Egress as the kernel builds it, with loopback allowed: the fake model servers listen there. */
export function loopbackEgress(logger: Logger): Egress {
  return createEgress(
    { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 1024 * 1024, egressMaxRetries: 2 },
    logger,
  );
}

export function llmConfig(overrides: Partial<LlmConfig> = {}): LlmConfig {
  return { llmBaseUrl: '', llmApiKey: '', llmModel: 'test-model', llmTimeoutMs: 5000, llmMaxRetries: 2, ...overrides };
}

/** The built-in provider with short backoffs, so retry tests take milliseconds. */
export function testProvider(egress: Egress, logger: Logger, config: Partial<LlmConfig>, options: Partial<OpenAiCompatibleProviderOptions> = {}) {
  return createOpenAiCompatibleProvider({ config: llmConfig(config), egress, logger, retryBackoffMs: 5, ...options });
}

/**
 * A database of its own with the tables the usage records need (tenants and
 * llm_usage), migrated by the real migrations, and an ORM as the kernel configures it.
 */
export async function startUsageDatabase(logger: Logger): Promise<{ orm: MikroORM; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const orm = createOrm({
    clientUrl: database.url,
    entities: [Tenant, ApiToken, LlmUsage],
    migrations: [
      { name: 'core/0001-tenancy', class: Migration0001Tenancy },
      { name: 'core/0003-llm-usage', class: Migration0003LlmUsage },
    ],
    poolMax: 5,
    logger,
  });
  try {
    await orm.connect();
    await orm.migrator.up();
  } catch (error) {
    await orm.close(true).catch(() => {});
    await database.drop();
    throw error;
  }
  return {
    orm,
    close: async () => {
      await orm.close(true);
      await database.drop();
    },
  };
}
