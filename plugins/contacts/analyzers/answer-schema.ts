import { LlmResponseError } from '../../../core';
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

/**
 * The JSON object of an answer that failed the schema as a whole, so that the members
 * that do conform are still used (one bad member costs its analyzer, not the session);
 * null when the answer is not a JSON object at all.
 */
export function salvage(error: unknown): Record<string, unknown> | null {
  if (!(error instanceof LlmResponseError) || !error.content) return null;
  try {
    const fence = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(error.content);
    const value: unknown = JSON.parse(fence ? fence[1] : error.content);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
