import type { OverrideOrigin } from '../../agents';
import type { EvaluateValues } from './evaluate-values';
import type { EvaluateSettingsJson } from './schemas';

/** Evaluate settings as the API returns them, in the schema's order. */
export const toJson = (values: EvaluateValues, origin: OverrideOrigin): EvaluateSettingsJson => ({
  agent_uuid: origin.agent_uuid,
  is_default: origin.is_default,
  is_active: values.is_active,
  source: origin.source,
  mode: values.mode,
  sessionization: values.sessionization,
  text: values.text,
  voice: values.voice,
  created_at: origin.created_at,
  updated_at: origin.updated_at,
});
