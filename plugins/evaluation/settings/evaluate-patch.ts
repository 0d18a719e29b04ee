import { isDeepStrictEqual } from 'node:util';
import type { EvaluateSettings } from '../entities';
import { valuesOf } from './evaluate-row';
import type { EvaluateValues } from './evaluate-values';
import type { EvaluateSettingsPatch } from './schemas';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `patch` merged into `base` at every depth: an object member merges member by
 * member, anything else replaces. The write schema has already refused members that
 * `base` does not have, so the result keeps `base`'s shape.
 */
function mergeDeep<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch === undefined ? base : (patch as T);
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) if (key in base) merged[key] = mergeDeep(base[key], value);
  return merged as T;
}

/**
 * Applies a partial update to a stored row: `{text: {sentiment_analyzer: {enabled: true}}}`
 * changes that one flag and nothing else. The whole values are written back, so a row
 * saved by an older version also gets the members added since (at their defaults).
 */
export function applyPatch(row: EvaluateSettings, patch: EvaluateSettingsPatch): void {
  const values: EvaluateValues = mergeDeep(valuesOf(row), {
    is_active: patch.is_active,
    mode: patch.mode,
    sessionization: patch.sessionization,
    text: patch.text,
    voice: patch.voice,
  });
  row.isActive = values.is_active;
  row.mode = values.mode;
  // Only members whose content changed: jsonb keeps its keys in its own order, and the
  // ORM would take a reordered but equal object for a change (and move `updated_at`).
  if (!isDeepStrictEqual(row.sessionization, values.sessionization)) row.sessionization = values.sessionization;
  if (!isDeepStrictEqual(row.text, values.text)) row.text = values.text;
  if (!isDeepStrictEqual(row.voice, values.voice)) row.voice = values.voice;
}
