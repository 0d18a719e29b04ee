import { PageQuery, ResourceId, Timestamp, Type, Uuid, type TSchema } from '../../../core';
import { RetryStrategySchema, TaskSchema, TaskStatusSchema, TaskTypeSchema } from './task-view';

/** The request schemas of the task routes (the response is TaskSchema, in task-view.ts). */

export const TaskParams = Type.Object({ uuid: ResourceId('outreach.task', 'The task') });

export const MAX_RETRY_ATTEMPTS = 100;
/** 30 days: longer waits are better expressed as a new task. */
export const MAX_RETRY_MINUTES = 30 * 24 * 60;

const Nullable = <T extends TSchema>(schema: T, description?: string) => Type.Union([schema, Type.Null()], description ? { description } : {});

/** The spec's listing contact item: built-in members; any other member is a custom contact field. */
const ContactItem = Type.Object(
  {
    name: Type.Optional(Type.String()),
    surname: Type.Optional(Type.String()),
    phone_number: Type.Optional(Type.String({ description: 'E.164 (`+34600000000`); matched first' })),
    email: Type.Optional(Type.String({ description: 'Matched when no contact has the phone number' })),
    timezone: Type.Optional(Type.String()),
    country_code: Type.Optional(Type.String()),
    primary_language: Type.Optional(Type.String()),
    company: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    lead_source: Type.Optional(Type.String()),
  },
  {
    additionalProperties: true,
    description:
      'Finds the tenant’s contact with this `phone_number` (E.164), else with this `email`, else creates it from these members (others become custom contact fields). Needs a `phone_number` or an `email`',
  },
);

const RetryMembers = (withDefaults: boolean) => ({
  max_retry_attempts: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_RETRY_ATTEMPTS, description: 'Retries after a failed first attempt', ...(withDefaults ? { default: 3 } : {}) }),
  ),
  retry_interval_minutes: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_RETRY_MINUTES, description: 'Minutes between retries (`fixed`), or before the first one (`exponential`); 0 retries at once', ...(withDefaults ? { default: 60 } : {}) }),
  ),
  retry_strategy: Type.Optional(withDefaults ? { ...RetryStrategySchema, default: 'fixed' } : RetryStrategySchema),
  retry_schedule: Type.Optional(
    Nullable(
      Type.Array(Type.Integer({ minimum: 0, maximum: MAX_RETRY_MINUTES }), { minItems: 1, maxItems: MAX_RETRY_ATTEMPTS }),
      'Required by `retry_strategy: custom` (and only taken with it): minutes before each retry, one per retry, at most `max_retry_attempts` entries',
    ),
  ),
});

const TaskData = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'What the executor needs. `webhook`: `url` (http or https, required) and `secret` (optional, 1 to 1000 characters; signs the call; write-only: stored encrypted apart from the data, never returned, shown as `has_secret: true`). ' +
    'Chatapp templates: `message_type: chatapp_template` needs `template_uuid`; with the channels plugin (`send_message`), `variables` fill its placeholders: a list (the body’s) or `{header?: [...], body?: [...]}`, ' +
    'each value a string or a number, or in the body `{type: "currency", currency: {fallback_value, code, amount_1000}}` (an ISO 4217 code, the amount times 1000 as an integer) or `{type: "date_time", date_time: {fallback_value}}`, as the WhatsApp Cloud API takes them; ' +
    '`header` and `buttons` where the template has them. Checked against the template at creation and on edit (422 at `task_data.*`).',
});
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The client’s own data, kept as sent' });
const Title = Type.String({ maxLength: 500 });
const Description = Type.String({ maxLength: 10_000 });
const Priority = (withDefault: boolean) =>
  Type.Integer({ minimum: 1, maximum: 10, description: '1 (runs first) to 10 (runs last) among the tenant’s due tasks', ...(withDefault ? { default: 5 } : {}) });

/** Read-only members of the task, so a client can send back what it read (they are ignored). */
const readOnlyMembers = Object.fromEntries(Object.entries(TaskSchema.properties).filter(([, member]) => (member as { readOnly?: boolean }).readOnly === true));

export const TaskCreate = Type.Object(
  {
    ...readOnlyMembers,
    title: Type.Optional({ ...Title, default: '' }),
    type: TaskTypeSchema,
    agent_uuid: ResourceId('agents.agent', 'The agent of this tenant the task works for (422 when it is not one)'),
    scheduled_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When it becomes due (ISO 8601); must be in the future. Omitted: now (due at once)' }),
    ),
    description: Type.Optional({ ...Description, default: '' }),
    contact_uuid: Type.Optional(Nullable(Uuid(), 'A contact of this tenant; give this or `contact`, not both')),
    contact: Type.Optional(Nullable(ContactItem, 'The contact to find or create; give this or `contact_uuid`, not both')),
    campaign_uuid: Type.Optional(Nullable(Uuid(), 'A campaign of this tenant it belongs to')),
    rule_uuid: Type.Optional(Nullable(Uuid(), 'A rule of this tenant whose windows, attempt cap and minimum gap it follows (beyond the spec: campaigns set it for their tasks)')),
    timezone: Type.Optional(Nullable(Type.String({ maxLength: 64 }), 'IANA zone (`Europe/Madrid`)')),
    priority: Type.Optional(Priority(true)),
    expires_at: Type.Optional(Nullable(Timestamp(), 'Expiration time: after it the task is not run (any more) and becomes `expired`; must be after `scheduled_at`')),
    ...RetryMembers(true),
    task_data: Type.Optional({ ...TaskData, default: {} }),
    metadata: Type.Optional({ ...Metadata, default: {} }),
    auto_queue: Type.Optional(Type.Boolean({ default: false, description: 'Created `queued` (in the run queue) instead of `scheduled`' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Notify the CRM',
        type: 'webhook',
        agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
        contact: { phone_number: '+34600000001', name: 'Ana' },
        scheduled_at: '2030-01-01T09:00:00Z',
        priority: 3,
        retry_strategy: 'exponential',
        retry_interval_minutes: 5,
        task_data: { url: 'https://crm.example.com/hooks/tasks', secret: 'shared-secret' },
      },
    ],
  },
);

/**
 * What a waiting task lets change. The members fixed at creation (`type`, `agent_uuid`,
 * `contact_uuid`, `campaign_uuid`, `rule_uuid`, `auto_queue`) are taken only with their
 * current value, so a client can send back what it read.
 */
export const TaskUpdate = Type.Object(
  {
    ...readOnlyMembers,
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    scheduled_at: Type.Optional(Type.String({ format: 'date-time', description: 'A new due time (in the future): the next attempt moves to it' })),
    priority: Type.Optional(Priority(false)),
    expires_at: Type.Optional(Nullable(Timestamp(), 'Must be in the future and after `scheduled_at`; null: never')),
    timezone: Type.Optional(Nullable(Type.String({ maxLength: 64 }), 'IANA zone')),
    ...RetryMembers(false),
    task_data: Type.Optional({ ...TaskData, description: `${TaskData.description} Replaces the whole object; the stored \`secret\` is kept unless \`secret\` is given (null removes it).` }),
    metadata: Type.Optional({ ...Metadata, description: 'Replaces the whole object' }),
    type: Type.Optional(TaskTypeSchema),
    agent_uuid: Type.Optional(Uuid()),
    contact_uuid: Type.Optional(Uuid()),
    campaign_uuid: Type.Optional(Nullable(Uuid())),
    rule_uuid: Type.Optional(Nullable(Uuid())),
    auto_queue: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, examples: [{ title: 'Call back after lunch', priority: 2 }] },
);

export const TaskListQuery = PageQuery({
  status: Type.Optional(TaskStatusSchema),
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s tasks' })),
  contact_uuid: Type.Optional(Uuid({ description: 'Only this contact’s tasks' })),
  campaign_uuid: Type.Optional(Uuid({ description: 'Only this campaign’s tasks' })),
  pool_uuid: Type.Optional(Uuid({ description: 'Only this pool’s tasks' })),
});
