import type { AgentSettingsSlot } from '../../agents';
import type { SessionizationProvider } from '../../conversations';
import { evaluateOverrides } from './evaluate-overrides';
import { effectiveSettings } from './evaluate-store';
import { EvaluateSettingsSchema } from './schemas';

export { effectiveSettings, type EffectiveSettings, type SettingsSource } from './evaluate-store';
export { EvaluateSettingsSchema, type EvaluateSettingsJson } from './schemas';

/** `GET|PUT /evaluate/default`, `POST /agents/{uuid}/evaluate/assign`, `PUT|DELETE /agents/{uuid}/evaluate`, and forgetting a deleted agent's override. */
export { evaluateOverrides } from './evaluate-overrides';

/** `settings.evaluation` on every agent: its effective evaluate settings, with `source`, one query per page of agents. */
export const evaluationSlot: AgentSettingsSlot = {
  key: 'evaluation',
  schema: EvaluateSettingsSchema,
  load: evaluateOverrides.loadEffective,
};

/** The conversations plugin cuts sessions by each agent's effective `sessionization`. */
export const sessionizationFromSettings: SessionizationProvider = {
  async forAgent(em, agentUuid) {
    const { sessionization } = (await effectiveSettings(em, agentUuid)).values;
    return { mode: sessionization.session_mode, timeoutMinutes: sessionization.timeout_minutes };
  },
};
