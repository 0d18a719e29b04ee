import { Component, ReadOnly, Timestamp, Type, Uuid, type TSchema } from '../../../core';
import { AGENT_STATUSES } from '../agent-status';
import { Appointments, AppointmentsWrite } from './appointments';
import { Channel } from './channel';
import { HttpUrl, LanguageCode, Text, TimeZone, allOptional } from './formats';
import { GuardRule, GuardRuleWrite } from './guard-rule';
import { Guideline, Note, OrderedTextWrite } from './guideline';
import { Intent } from './intent';
import { PhoneNumber } from './phone-number';
import { Procedure, ProcedureWrite } from './procedure';
import { RoutingRule, RoutingRuleWrite } from './routing-rule';
import { TextSettings, TextSettingsWrite } from './text-settings';
import { TrainingRow, TrainingRowWrite } from './training-row';
import { VoiceSettings, VoiceSettingsWrite } from './voice-settings';
import { Webhook } from './webhook';

/** Persona and prompt text members, in the spec's order. */
export const PERSONA_MEMBERS = [
  'description',
  'company_name',
  'role',
  'objective',
  'tone',
  'behavior_guidelines',
  'company_service',
  'topic',
  'length_detail',
  'interest_of_product',
  'negative_response',
  'custom_prompt',
  'recommendations',
] as const;

const persona = Object.fromEntries(PERSONA_MEMBERS.map((member) => [member, Text()])) as Record<(typeof PERSONA_MEMBERS)[number], ReturnType<typeof Text>>;

const scalarMembers = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  ...persona,
  language: LanguageCode(),
  speed: Type.String({ maxLength: 32, description: 'Speaking pace, e.g. `normal`', examples: ['normal'] }),
  timezone: TimeZone(),
  appointment_scheduling_enabled: Type.Boolean(),
  appointment_scheduling_randomly: Type.Boolean(),
  custom_llm_url: Type.Union([HttpUrl('An OpenAI-compatible endpoint this agent uses instead of the default model'), Type.Null()]),
};

/** A settings member owned by another plugin (`memorize`, `evaluation`, ...), by its key. */
export type SettingsSlotSchemas = Record<string, TSchema>;

/** The agent as every route returns it. Built at init: other plugins add settings members. */
export function agentSchema(slots: SettingsSlotSchemas) {
  return Component('Agent', Type.Object(
    {
      agent_uuid: ReadOnly(Uuid()),
      ...scalarMembers,
      status: ReadOnly(Type.Union(AGENT_STATUSES.map((s) => Type.Literal(s)), { description: 'Changed by `POST .../activate` and `.../pause`' })),
      settings: Type.Object(
        { voice: VoiceSettings, text: TextSettings, ...readOnlySlots(slots) },
        { additionalProperties: false, description: 'Effective settings: defaults filled in; `memorize`, `evaluation`, ... come from their plugins' },
      ),
      guidelines: Type.Array(Guideline, { description: 'In `order`' }),
      notes: Type.Array(Note, { description: 'In `order`' }),
      procedures: Type.Array(Procedure),
      training: Type.Array(TrainingRow),
      intents: ReadOnly(Type.Array(Intent, { description: 'Changed through `/agents/{uuid}/intents`' })),
      webhooks: ReadOnly(Type.Array(Webhook, { description: 'Changed through `/agents/{uuid}/webhooks`' })),
      appointments: Appointments,
      routing_rules: Type.Array(RoutingRule, { description: 'By `priority`, lowest first' }),
      guard_rules: Type.Array(GuardRule),
      phone_numbers: ReadOnly(Type.Array(PhoneNumber, { description: 'Changed through `/agents/{uuid}/phone-numbers`' })),
      channels: ReadOnly(Type.Array(Channel, { description: 'Changed through `/agents/{uuid}/channels`' })),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ));
}

function readOnlySlots(slots: SettingsSlotSchemas) {
  return Object.fromEntries(Object.entries(slots).map(([key, schema]) => [key, ReadOnly(schema)]));
}

/**
 * The body of `POST /agents` and `PUT /agents/{uuid}`: members present replace, absent
 * ones stay; settings merge by group and member; list items omit `uuid`. Everything
 * the agent returns may be sent back: read-only members are ignored.
 */
export function agentWriteSchema(slots: SettingsSlotSchemas, options: { create: boolean }) {
  const optional = allOptional(scalarMembers);
  const read = agentSchema(slots).properties;
  return Type.Object(
    {
      ...optional,
      ...(options.create ? { name: scalarMembers.name } : {}),
      agent_uuid: read.agent_uuid,
      status: read.status,
      settings: Type.Optional(
        Type.Object({ voice: Type.Optional(VoiceSettingsWrite), text: Type.Optional(TextSettingsWrite), ...readOnlySlots(slots) }, { additionalProperties: false }),
      ),
      guidelines: Type.Optional(Type.Array(OrderedTextWrite('guideline'), { maxItems: 1000, description: 'Replaces all guidelines' })),
      notes: Type.Optional(Type.Array(OrderedTextWrite('note'), { maxItems: 1000, description: 'Replaces all notes' })),
      procedures: Type.Optional(Type.Array(ProcedureWrite, { maxItems: 200, description: 'Replaces all procedures' })),
      training: Type.Optional(Type.Array(TrainingRowWrite, { maxItems: 5000, description: 'Replaces all training rows' })),
      intents: read.intents,
      webhooks: read.webhooks,
      appointments: Type.Optional(AppointmentsWrite),
      routing_rules: Type.Optional(Type.Array(RoutingRuleWrite, { maxItems: 500, description: 'Replaces all routing rules' })),
      guard_rules: Type.Optional(Type.Array(GuardRuleWrite, { maxItems: 500, description: 'Replaces all guard rules' })),
      phone_numbers: read.phone_numbers,
      channels: read.channels,
      created_at: read.created_at,
      updated_at: read.updated_at,
    },
    {
      additionalProperties: false,
      examples: [
        {
          name: 'Reception',
          role: 'Receptionist of a dental clinic',
          language: 'en-US',
          timezone: 'Europe/Madrid',
          settings: { voice: { interaction: { customer_speak_first: false, inbound_first_message: 'Hello, Smile Clinic, how can I help?' } } },
          guidelines: [{ content: 'Never give medical advice.', order: 1 }],
        },
      ],
    },
  );
}
