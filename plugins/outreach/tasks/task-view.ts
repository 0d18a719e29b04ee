import { Component, ReadOnly, Timestamp, Type, Uuid, type Static, type TSchema } from '../../../core';
import { RETRY_STRATEGIES, TASK_STATUSES, TASK_TYPES, type Task } from '../entities/task.entity';

/** One of the values, as a JSON Schema `enum` (a refusal then lists them in one message). */
const literals = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });
const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

/** `task_data.secret` is write-only (the webhook executor signs with it): sealed in its own column (task-secret.ts), never returned. */
export const TASK_DATA_SECRET = 'secret';
/** What responses show instead of the secret; ignored when a client sends it back. */
export const TASK_DATA_HAS_SECRET = 'has_secret';

export const TaskTypeSchema = literals(
  TASK_TYPES,
  'What the task does. Each type needs an executor: `webhook`, `follow_up` and `custom` are built in; `make_call`, `send_message`, ... come with the plugins that run them (a type without one is refused with 422)',
);
export const TaskStatusSchema = literals(
  TASK_STATUSES,
  '`scheduled` (or `queued` when created with `auto_queue`) until it runs; `in_progress` while an attempt runs; `completed`, `failed` (attempts spent), `cancelled` or `expired` (`expires_at` passed) at the end. A failed attempt with retries left goes back to `scheduled`',
);
export const RetryStrategySchema = literals(
  RETRY_STRATEGIES,
  'How long to wait before retry n: `fixed`: `retry_interval_minutes`; `exponential`: `retry_interval_minutes * 2^(n-1)` (at most 30 days); `custom`: `retry_schedule[n-1]` (the last entry again when the list is shorter)',
);

/** The task as every task route returns it (and as `task.*` events and the webhook executor carry it). */
export const TaskSchema = Component(
  'Task',
  Type.Object({
    uuid: ReadOnly(Uuid()),
    title: Type.String({ description: 'A short label' }),
    type: TaskTypeSchema,
    agent_uuid: Uuid({ description: 'The agent of this tenant the task works for' }),
    contact_uuid: Uuid({ description: 'The contact it is about' }),
    campaign_uuid: Nullable(Uuid(), 'The campaign it belongs to, if any'),
    pool_uuid: ReadOnly(Nullable(Uuid(), 'The campaign pool whose contact it works (campaign tasks); removing the contact from the pool cancels it while it waits')),
    rule_uuid: Nullable(Uuid(), 'The rule whose windows (weekdays and hours in the contact’s time zone), attempt cap and minimum gap it follows'),
    scheduled_at: Timestamp(),
    description: Type.String(),
    timezone: Nullable(Type.String(), 'IANA zone of the task; a rule’s window is read in the contact’s zone, else this one, else the rule’s'),
    priority: Type.Integer({ minimum: 1, maximum: 10, description: '1 (first) to 10 (last): when several tasks of the tenant are due, the lowest number runs first' }),
    expires_at: Nullable(Timestamp(), 'After this the task is not run any more: it becomes `expired`'),
    max_retry_attempts: Type.Integer({ description: 'Retries after the first attempt (a rule’s `max_attempts` may cap the attempts further)' }),
    retry_interval_minutes: Type.Integer({ description: 'Minutes before a retry (`fixed`), or the first retry (`exponential`)' }),
    retry_strategy: RetryStrategySchema,
    retry_schedule: Nullable(Type.Array(Type.Integer()), '`custom` strategy: minutes before each retry, in order'),
    task_data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What the executor needs: `webhook`: `url`, `secret` (write-only: stored encrypted, shown as `has_secret: true` when set); chatapp templates: `message_type: chatapp_template` and `template_uuid`',
    }),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'The client’s own data, kept as sent' }),
    auto_queue: Type.Boolean({ description: 'Created straight into the run queue (`queued`) rather than `scheduled`; both run at `scheduled_at`' }),
    status: ReadOnly(TaskStatusSchema),
    attempts: ReadOnly(Type.Integer({ description: 'Attempts run so far' })),
    last_attempt_at: ReadOnly(
      Nullable(Timestamp(), 'When its latest attempt started; null before the first. Its rule’s `min_gap_minutes` is counted from the latest attempt on the contact under that rule, whatever task made it'),
    ),
    next_attempt_at: ReadOnly(Nullable(Timestamp(), 'When the runner next takes it up (its first run, a retry, or the next window of its rule); null once finished')),
    started_at: ReadOnly(Nullable(Timestamp(), 'When its first attempt started')),
    finished_at: ReadOnly(Nullable(Timestamp(), 'When it reached `completed`, `failed`, `cancelled` or `expired`')),
    last_error: ReadOnly(Nullable(Type.String(), 'Why the last attempt failed')),
    result: ReadOnly(Type.Unknown({ description: 'What the executor returned (e.g. the webhook’s answer, the event id of `follow_up`); null until completed' })),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  }),
);

export interface TaskJson {
  uuid: string;
  title: string;
  type: string;
  agent_uuid: string;
  contact_uuid: string;
  campaign_uuid: string | null;
  pool_uuid: string | null;
  rule_uuid: string | null;
  scheduled_at: string;
  description: string;
  timezone: string | null;
  priority: number;
  expires_at: string | null;
  max_retry_attempts: number;
  retry_interval_minutes: number;
  retry_strategy: string;
  retry_schedule: number[] | null;
  task_data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  auto_queue: boolean;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  last_error: string | null;
  result: unknown;
  created_at: string;
  updated_at: string;
}

// The interface is the plugin's public type; the schema must describe the same thing.
type Assignable<A, B> = A extends B ? true : never;
const _schemaMatchesInterface: Assignable<Static<typeof TaskSchema>, TaskJson> = true;
void _schemaMatchesInterface;

const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

/** `task_data` as clients see it (a task's or a campaign's): `has_secret: true` when a sealed secret is stored beside it. */
export function publicTaskData(taskData: Record<string, unknown>, sealedSecret: string | null): Record<string, unknown> {
  return sealedSecret === null ? taskData : { ...taskData, [TASK_DATA_HAS_SECRET]: true };
}

export const taskJson = (row: Task): TaskJson => ({
  uuid: row.uuid,
  title: row.title,
  type: row.type,
  agent_uuid: row.agentUuid,
  contact_uuid: row.contactUuid,
  campaign_uuid: row.campaignUuid,
  pool_uuid: row.poolUuid,
  rule_uuid: row.ruleUuid,
  scheduled_at: row.scheduledAt.toISOString(),
  description: row.description,
  timezone: row.timezone,
  priority: row.priority,
  expires_at: isoOrNull(row.expiresAt),
  max_retry_attempts: row.maxRetryAttempts,
  retry_interval_minutes: row.retryIntervalMinutes,
  retry_strategy: row.retryStrategy,
  retry_schedule: row.retrySchedule,
  task_data: publicTaskData(row.taskData, row.webhookSecret),
  metadata: row.metadata,
  auto_queue: row.autoQueue,
  status: row.status,
  attempts: row.attempts,
  last_attempt_at: isoOrNull(row.lastAttemptAt),
  next_attempt_at: isoOrNull(row.nextAttemptAt),
  started_at: isoOrNull(row.startedAt),
  finished_at: isoOrNull(row.finishedAt),
  last_error: row.lastError,
  result: row.result ?? null,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
