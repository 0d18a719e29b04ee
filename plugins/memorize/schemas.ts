import { Component, ReadOnly, Timestamp, Type, Uuid, type Static } from '../../core';

export const FIELD_KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
export const MAX_FIELDS = 100;

export const MemorizeFieldSchema = Type.Object(
  {
    key: Type.String({ pattern: FIELD_KEY_PATTERN, description: 'Unique within the list: a lower-case letter, then up to 63 of a-z, 0-9 and _' }),
    description: Type.String({ maxLength: 2000, description: 'What to remember under this key (the instruction to the model)' }),
  },
  { additionalProperties: false },
);

const Source = Type.Union([Type.Literal('default'), Type.Literal('agent')], { description: '`default`: the tenant-wide default; `agent`: the agent’s own override' });
const NullableTimestamp = Type.Union([Timestamp(), Type.Null()], { description: 'ISO 8601 UTC; null for a default that was never saved' });

/** Memorize settings as every route (and `settings.memorize` on an agent) returns them. */
export const MemorizeSettingsSchema = Component('MemorizeSettings', Type.Object(
  {
    agent_uuid: ReadOnly(Type.Union([Uuid(), Type.Null()], { description: 'The agent of an override; null for the default' })),
    is_default: ReadOnly(Type.Boolean({ description: 'Whether these are the tenant-wide default settings' })),
    source: ReadOnly(Source),
    enabled: Type.Boolean({ description: 'Whether the agent remembers facts about its contacts' }),
    retention_days: Type.Integer({ minimum: 1, maximum: 3650, description: 'Days a remembered fact is kept' }),
    fields: Type.Array(MemorizeFieldSchema, { maxItems: MAX_FIELDS, description: 'What to remember about a contact; keys unique' }),
    summary_prompt: Type.String({ maxLength: 20_000, description: 'Instruction for summarizing what was learned about the contact' }),
    created_at: ReadOnly(NullableTimestamp),
    updated_at: ReadOnly(NullableTimestamp),
  },
  { description: 'Memorize settings: the tenant-wide default or one agent’s override' },
));
export type MemorizeSettingsJson = Static<typeof MemorizeSettingsSchema>;

/** A partial update: members left out keep their value; read-only members are ignored. */
export const MemorizeSettingsWrite = Type.Object(
  {
    ...MemorizeSettingsSchema.properties,
    enabled: Type.Optional(MemorizeSettingsSchema.properties.enabled),
    retention_days: Type.Optional(MemorizeSettingsSchema.properties.retention_days),
    fields: Type.Optional(MemorizeSettingsSchema.properties.fields),
    summary_prompt: Type.Optional(MemorizeSettingsSchema.properties.summary_prompt),
  },
  {
    additionalProperties: false,
    examples: [
      {
        enabled: true,
        retention_days: 90,
        fields: [
          { key: 'preferred_name', description: 'How the contact likes to be addressed' },
          { key: 'budget', description: 'The budget the contact mentioned, with its currency' },
        ],
      },
    ],
  },
);
export type MemorizeSettingsPatch = Static<typeof MemorizeSettingsWrite>;
