import type { EvaluateSettings } from '../entities';
import { builtInDefaults, type EvaluateValues } from './evaluate-values';

/** The values of a stored row. */
export const valuesOf = (row: EvaluateSettings): EvaluateValues => ({
  is_active: row.isActive,
  mode: row.mode,
  // Stored whole; merged over the built-ins so a member added in a later version has its default.
  sessionization: { ...builtInDefaults().sessionization, ...row.sessionization },
  text: mergeBlock(builtInDefaults().text, row.text),
  voice: mergeBlock(builtInDefaults().voice, row.voice),
});

function mergeBlock<B extends Record<string, object>>(base: B, stored: Partial<B> | undefined): B {
  const merged = { ...base };
  for (const key of Object.keys(base) as Array<keyof B>) merged[key] = { ...base[key], ...(stored?.[key] ?? {}) } as B[keyof B];
  return merged;
}

/** The columns of a new row with these values. */
export const columnsOf = (values: EvaluateValues) => ({
  isActive: values.is_active,
  mode: values.mode,
  sessionization: values.sessionization,
  text: values.text,
  voice: values.voice,
});
