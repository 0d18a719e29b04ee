import type { AnalyzerTarget } from './analyzer-targets';

/**
 * The JSON Schema of the model's one answer for a session: a member per analyzer,
 * `{value, reason}` for a field, `{reached, reason}` for a pipeline stage. Extra
 * members are tolerated (local models like to add a `confidence`).
 */

const VALUE_ANSWER = {
  type: 'object',
  properties: {
    value: { type: ['string', 'null'], description: 'The value the session tells, as text; null when it does not tell' },
    reason: { type: 'string', description: 'One sentence saying why' },
  },
  required: ['value', 'reason'],
} as const;

const STAGE_ANSWER = {
  type: 'object',
  properties: {
    reached: { type: 'boolean', description: 'Whether the contact reached the stage' },
    reason: { type: 'string', description: 'One sentence saying why' },
  },
  required: ['reached', 'reason'],
} as const;

export interface ValueAnswer {
  value: string | null;
  reason: string;
}

export interface StageAnswer {
  reached: boolean;
  reason: string;
}

export function answerSchema(targets: readonly AnalyzerTarget[]): Record<string, unknown> {
  const properties = Object.fromEntries(targets.map((target) => [target.analyzerId, target.kind === 'stage' ? STAGE_ANSWER : VALUE_ANSWER]));
  return { type: 'object', properties, required: Object.keys(properties) };
}

export const isValueAnswer = (part: unknown): part is ValueAnswer =>
  typeof part === 'object' && part !== null && (typeof (part as ValueAnswer).value === 'string' || (part as ValueAnswer).value === null) && typeof (part as ValueAnswer).reason === 'string';

export const isStageAnswer = (part: unknown): part is StageAnswer =>
  typeof part === 'object' && part !== null && typeof (part as StageAnswer).reached === 'boolean' && typeof (part as StageAnswer).reason === 'string';
