import type { MikroORM } from '@mikro-orm/postgresql';
import { createEgress, type Egress } from '../../../core/egress';
import { createOrm } from '../../../core/data/orm';
import { createOpenAiCompatibleProvider, type LlmConfig, type OpenAiCompatibleProviderOptions } from '../../../core/llm';
import type { Logger } from '../../../core/logging/logger';
import { coreEntities } from '../../../core/kernel/core-entities';
import { createTestDatabase } from '../../../core/testing';
import { coreMigrations } from '../../../core/migrations';
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
    // The kernel's whole schema: its migrations change the tenants table too.
    entities: coreEntities,
    migrations: coreMigrations.map((migration) => ({ ...migration, name: `core/${migration.name}` })),
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
