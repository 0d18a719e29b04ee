import { defineAgentOverrideSettings } from '../../agents';
import { EvaluateSettings } from '../entities';
import { toJson } from './evaluate-json';
import { applyPatch } from './evaluate-patch';
import { columnsOf, valuesOf } from './evaluate-row';
import { builtInDefaults } from './evaluate-values';
import { EvaluateSettingsSchema, EvaluateSettingsWrite } from './schemas';

const MERGE_NOTE =
  'Partial update, merged at every depth: members left out keep their value, so `{"text": {"sentiment_analyzer": {"enabled": true}}}` changes that one flag ' +
  'and `{"sessionization": {"timeout_minutes": 10}}` only the timeout. Unknown members are refused (422 naming them, e.g. `text.foo`); read-only ones are ignored.';

/**
 * The evaluate settings' default and per-agent overrides: `GET|PUT /evaluate/default`,
 * `POST /agents/{uuid}/evaluate/assign`, `PUT|DELETE /agents/{uuid}/evaluate`, and the
 * effective settings of one agent (the evaluator) or a page of agents (`settings.evaluation`).
 */
export const evaluateOverrides = defineAgentOverrideSettings({
  segment: 'evaluate',
  noun: 'evaluate',
  article: 'an',
  tags: ['evaluation'],
  entity: EvaluateSettings,
  schema: EvaluateSettingsSchema,
  writeSchema: EvaluateSettingsWrite,
  overrideKind: 'evaluation.agent-override',
  builtIn: builtInDefaults,
  valuesOf,
  columnsOf,
  toJson,
  applyPatch,
  descriptions: {
    builtIn: 'every analyzer off, 30 minutes of idleness',
    changeDefault: `${MERGE_NOTE} Agents without an override follow the change at once.`,
    changeOverride: MERGE_NOTE,
    assign:
      'Creates the agent’s override as a copy of the current default, so that it can be changed without touching the default ' +
      '(later changes of the default no longer reach this agent).',
  },
});
