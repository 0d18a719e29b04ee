import { defineAgentOverrideSettings } from '../agents';
import { applyPatch, checkPatch } from './memorize-patch';
import { MemorizeSettings } from './memorize-settings.entity';
import { builtInDefaults, columnsOf, toJson, valuesOf } from './memorize-values';
import { MemorizeSettingsSchema, MemorizeSettingsWrite } from './schemas';

const FIELDS_NOTE = '`fields` replaces the whole list; its keys must be unique.';

/**
 * The memorize settings' default and per-agent overrides: `GET|PUT /memorize/default`,
 * `POST /agents/{uuid}/memorize/assign`, `PUT|DELETE /agents/{uuid}/memorize`, and the
 * effective settings of a page of agents for `settings.memorize`.
 */
export const memorizeOverrides = defineAgentOverrideSettings({
  segment: 'memorize',
  noun: 'memorize',
  article: 'a',
  tags: ['memorize'],
  entity: MemorizeSettings,
  schema: MemorizeSettingsSchema,
  writeSchema: MemorizeSettingsWrite,
  overrideKind: 'memorize.agent-override',
  builtIn: builtInDefaults,
  valuesOf,
  columnsOf,
  toJson,
  checkPatch,
  applyPatch,
  descriptions: {
    changeDefault: `Partial update of the tenant-wide default: members left out keep their value. ${FIELDS_NOTE}`,
    changeOverride: `Partial update of the agent’s override: members left out keep their value. ${FIELDS_NOTE}`,
    assign: 'Creates the agent’s override, initialised from the current default, so that it can be changed without touching the default.',
  },
});
