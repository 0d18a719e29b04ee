import { ValidationError } from '../../core';
import type { MemorizeSettings } from './memorize-settings.entity';
import type { MemorizeSettingsPatch } from './schemas';

/** The checks the schema cannot make: field keys are unique within the list. */
export function checkPatch(patch: MemorizeSettingsPatch): void {
  if (!patch.fields) return;
  const errors: Record<string, string[]> = {};
  const firstIndex = new Map<string, number>();
  patch.fields.forEach((field, index) => {
    const first = firstIndex.get(field.key);
    if (first === undefined) firstIndex.set(field.key, index);
    else errors[`fields.${index}.key`] = [`duplicates fields.${first}.key ("${field.key}"); keys must be unique`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** Applies the members present in the patch; absent ones keep their value. */
export function applyPatch(row: MemorizeSettings, patch: MemorizeSettingsPatch): void {
  if (patch.enabled !== undefined) row.enabled = patch.enabled;
  if (patch.retention_days !== undefined) row.retentionDays = patch.retention_days;
  if (patch.fields !== undefined) row.fields = patch.fields.map((field) => ({ key: field.key, description: field.description }));
  if (patch.summary_prompt !== undefined) row.summaryPrompt = patch.summary_prompt;
}
