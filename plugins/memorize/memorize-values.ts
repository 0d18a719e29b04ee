import type { OverrideOrigin } from '../agents';
import type { MemorizeField, MemorizeSettings } from './memorize-settings.entity';
import type { MemorizeSettingsJson } from './schemas';

export interface MemorizeValues {
  enabled: boolean;
  retention_days: number;
  fields: MemorizeField[];
  summary_prompt: string;
}

/** A tenant's default before it is first saved. */
export const builtInDefaults = (): MemorizeValues => ({
  enabled: false,
  retention_days: 365,
  fields: [],
  summary_prompt:
    'Summarize what this conversation taught us about the contact: stable facts and preferences worth remembering for the next conversation, ' +
    'not the conversation itself. Leave out anything the contact asked to be forgotten.',
});

export const valuesOf = (row: MemorizeSettings): MemorizeValues => ({
  enabled: row.enabled,
  retention_days: row.retentionDays,
  // A copy: the row's list must not be shared with a response or a new override.
  fields: row.fields.map((field) => ({ key: field.key, description: field.description })),
  summary_prompt: row.summaryPrompt,
});

/** The columns of a new row with these values. */
export const columnsOf = (values: MemorizeValues) => ({
  enabled: values.enabled,
  retentionDays: values.retention_days,
  fields: values.fields,
  summaryPrompt: values.summary_prompt,
});

/** The values between where they come from and when they were saved, in the schema's order. */
export const toJson = (values: MemorizeValues, { created_at, updated_at, ...origin }: OverrideOrigin): MemorizeSettingsJson => ({
  ...origin,
  ...values,
  created_at,
  updated_at,
});
