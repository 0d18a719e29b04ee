import type { PluginMigration } from '../plugin/define-plugin';
import { Migration0001Tenancy } from './0001-tenancy';
import { Migration0002Bus } from './0002-bus';
import { Migration0003LlmUsage } from './0003-llm-usage';
import { Migration0004BusWakeAfterCommit } from './0004-bus-wake-after-commit';
import { Migration0005IdempotencyKeys } from './0005-idempotency-keys';
import { Migration0006TenantLifecycle } from './0006-tenant-lifecycle';
import { Migration0007Limits } from './0007-limits';
import { Migration0008LlmUsageAgent } from './0008-llm-usage-agent';
import { Migration0009BusOutboxKeys } from './0009-bus-outbox-keys';

/** The kernel's own migrations, oldest first. Plugins keep theirs in their own folder. */
export const coreMigrations: PluginMigration[] = [
  { name: '0001-tenancy', class: Migration0001Tenancy },
  { name: '0002-bus', class: Migration0002Bus },
  { name: '0003-llm-usage', class: Migration0003LlmUsage },
  { name: '0004-bus-wake-after-commit', class: Migration0004BusWakeAfterCommit },
  { name: '0005-idempotency-keys', class: Migration0005IdempotencyKeys },
  { name: '0006-tenant-lifecycle', class: Migration0006TenantLifecycle },
  { name: '0007-limits', class: Migration0007Limits },
  { name: '0008-llm-usage-agent', class: Migration0008LlmUsageAgent },
  { name: '0009-bus-outbox-keys', class: Migration0009BusOutboxKeys },
];
