import type { PluginMigration } from '../core/plugin/define-plugin';
import { Migration0001Tenancy } from './0001-tenancy';
import { Migration0002Bus } from './0002-bus';
import { Migration0003LlmUsage } from './0003-llm-usage';
import { Migration0004BusWakeAfterCommit } from './0004-bus-wake-after-commit';

/** The kernel's own migrations, oldest first. Plugins keep theirs in their own folder. */
export const coreMigrations: PluginMigration[] = [
  { name: '0001-tenancy', class: Migration0001Tenancy },
  { name: '0002-bus', class: Migration0002Bus },
  { name: '0003-llm-usage', class: Migration0003LlmUsage },
  { name: '0004-bus-wake-after-commit', class: Migration0004BusWakeAfterCommit },
];
