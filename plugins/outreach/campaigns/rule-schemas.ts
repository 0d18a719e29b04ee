import { Component, PageQuery, ReadOnly, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid, type Static } from '../../../core';

/** The channels a rule may restrict its tasks to (null: any). */
export const RULE_CHANNELS = ['call', 'sms', 'chatapp', 'email'] as const;

const TIME_OF_DAY = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

const Weekdays = Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), {
  minItems: 1,
  maxItems: 7,
  uniqueItems: true,
  description: 'ISO weekdays on which its tasks may run: 1 (Monday) to 7 (Sunday), each at most once, at least one',
});
const StartTime = Type.String({ pattern: TIME_OF_DAY, description: '`HH:MM` (24 h), inclusive, in the contact’s time zone (else the rule’s `timezone`); before `end_time`' });
const EndTime = Type.String({ pattern: TIME_OF_DAY, description: '`HH:MM` (24 h), exclusive, in the same time zone; after `start_time`' });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (`Europe/Madrid`) used for contacts who have none' });
const MaxAttempts = Type.Integer({ minimum: 1, maximum: 20, description: 'How many attempts a contact gets' });
const MinGap = Type.Integer({
  minimum: 0,
  maximum: 10080,
  description:
    'Minutes at least between two attempts on a contact under this rule (at most a week), whichever tasks make them: two campaigns with this rule, a task made by hand beside a campaign’s, or the retries of one task. 0: no gap',
});
const Channel = Type.Union([...RULE_CHANNELS.map((channel) => Type.Literal(channel)), Type.Null()], {
  description: 'The channel its tasks use: `call`, `sms`, `chatapp`, `email`, or null for any',
});

export const RuleSchema = Component(
  'OutreachRule',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      weekdays: Weekdays,
      start_time: StartTime,
      end_time: EndTime,
      timezone: Timezone,
      max_attempts: MaxAttempts,
      min_gap_minutes: MinGap,
      channel: Channel,
      is_active: Type.Boolean({ description: 'An inactive rule stays attached but is not the one a campaign’s new tasks follow' }),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A calling/messaging policy: when (weekdays and hours in the contact’s time zone), how often and on which channel a campaign’s tasks may run' },
  ),
);
export type RuleJson = Static<typeof RuleSchema>;

const example = {
  name: 'Office hours',
  weekdays: [1, 2, 3, 4, 5],
  start_time: '09:00',
  end_time: '18:00',
  timezone: 'Europe/Madrid',
  max_attempts: 3,
  min_gap_minutes: 120,
  channel: 'call',
  is_active: true,
};

export const RuleCreateBody = Type.Object(
  {
    ...RuleSchema.properties,
    weekdays: Type.Optional({ ...Weekdays, default: [1, 2, 3, 4, 5], description: `${Weekdays.description}. Default Monday to Friday.` }),
    start_time: Type.Optional({ ...StartTime, default: '09:00' }),
    end_time: Type.Optional({ ...EndTime, default: '18:00' }),
    timezone: Type.Optional({ ...Timezone, default: 'UTC' }),
    max_attempts: Type.Optional({ ...MaxAttempts, default: 3 }),
    min_gap_minutes: Type.Optional({ ...MinGap, default: 60 }),
    channel: Type.Optional({ ...Channel, default: null }),
    is_active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false, examples: [example] },
);

/** A partial update; what was read may be sent back (read-only members are ignored). */
export const RulePatchBody = Type.Object(
  {
    ...RuleSchema.properties,
    name: Type.Optional(RuleSchema.properties.name),
    weekdays: Type.Optional(Weekdays),
    start_time: Type.Optional(StartTime),
    end_time: Type.Optional(EndTime),
    timezone: Type.Optional(Timezone),
    max_attempts: Type.Optional(MaxAttempts),
    min_gap_minutes: Type.Optional(MinGap),
    channel: Type.Optional(Channel),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, examples: [{ end_time: '20:00', is_active: false }] },
);

export const RuleListQuery = PageQuery({
  is_active: Type.Optional(Type.Boolean({ description: 'Only active (true) or inactive (false) rules' })),
});

export const RuleParams = Type.Object({ uuid: ResourceId('outreach.rule', 'The rule’s uuid') });

/** The spec's `DELETE /api/v1/rules/{uuid}` answer. */
export const RuleDeletedEnvelope = SuccessEnvelope(Type.Array(Type.Unknown(), { maxItems: 0, description: "Always empty" }));
