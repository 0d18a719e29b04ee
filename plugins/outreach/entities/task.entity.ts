import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/** The spec's task types. Each needs an executor registered for it (see task-executors.ts). */
export const TASK_TYPES = ['make_call', 'send_message', 'send_email', 'follow_up', 'appointment', 'survey', 'notification', 'webhook', 'custom'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** decisions.md: `pending | scheduled | queued -> in_progress -> completed | failed | cancelled | expired`. */
export const TASK_STATUSES = ['pending', 'scheduled', 'queued', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Not started yet: what a pool removal cancels and what may still be edited. */
export const WAITING_STATUSES: readonly TaskStatus[] = ['pending', 'scheduled', 'queued'];

export const RETRY_STRATEGIES = ['fixed', 'exponential', 'custom'] as const;
export type RetryStrategy = (typeof RETRY_STRATEGIES)[number];

/**
 * A scheduled unit of work an agent executes for a contact. It becomes due at
 * `scheduledAt` (a delayed bus message), waits for its rule's window, runs through the
 * executor of its type, and retries per its strategy until attempts are spent or it
 * expires. `contactUuid`, `agentUuid` are plain columns (other plugins' rows).
 */
@Entity({ tableName: 'tasks' })
@Index({ name: 'tasks_tenant_uuid_status_scheduled_at_index', properties: ['tenantUuid', 'status', 'scheduledAt'] })
// The runner's claim: the tenant's waiting tasks by due time (a campaign may park thousands in a later window).
@Index({ name: 'tasks_due_index', properties: ['tenantUuid', 'nextAttemptAt'], where: "status in ('pending', 'scheduled', 'queued')" })
@Index({ name: 'tasks_pool_uuid_contact_uuid_index', properties: ['poolUuid', 'contactUuid'] })
// Cancelling a campaign's waiting tasks, and whether a completing campaign has any left.
@Index({ name: 'tasks_campaign_uuid_status_index', properties: ['campaignUuid', 'status'] })
@Index({ name: 'tasks_tenant_uuid_contact_uuid_index', properties: ['tenantUuid', 'contactUuid'] })
// A rule's minimum gap: the latest attempt on a contact under a rule (only attempted tasks are in it).
@Index({ name: 'tasks_contact_rule_last_attempt_index', properties: ['tenantUuid', 'contactUuid', 'ruleUuid', 'lastAttemptAt'], where: 'last_attempt_at is not null' })
export class Task extends TenantScopedEntity {
  @Property({ type: 'text', default: '' })
  title: string & Opt = '';

  @Property({ type: 'text' })
  type!: TaskType;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  campaignUuid: string | null = null;

  /** The pool item it works (campaign tasks); a pool removal cancels its waiting tasks. */
  @Property({ type: 'uuid', nullable: true })
  poolUuid: string | null = null;

  /** The rule whose windows and limits it follows. */
  @Property({ type: 'uuid', nullable: true })
  ruleUuid: string | null = null;

  @Property({ type: 'datetime' })
  scheduledAt!: Date;

  @Property({ type: 'text', default: '' })
  description: string & Opt = '';

  @Property({ type: 'text', nullable: true })
  timezone: string | null = null;

  @Property({ type: 'integer', default: 5 })
  priority: number & Opt = 5;

  @Property({ type: 'datetime', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'integer', default: 3 })
  maxRetryAttempts: number & Opt = 3;

  @Property({ type: 'integer', default: 60 })
  retryIntervalMinutes: number & Opt = 60;

  @Property({ type: 'text', default: 'fixed' })
  retryStrategy: RetryStrategy & Opt = 'fixed';

  /** `custom` strategy: minutes before each retry, in order. */
  @Property({ type: 'json', nullable: true })
  retrySchedule: number[] | null = null;

  /** What the executor needs; never the write-only secret (webhookSecret). */
  @Property({ type: 'json' })
  taskData: Record<string, unknown> & Opt = {};

  /**
   * The write-only `task_data.secret` (the webhook executor signs with it), sealed for
   * the tenant (see task-secret.ts); null when it has none.
   */
  @Property({ type: 'text', nullable: true })
  webhookSecret: string | null = null;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ type: 'boolean', default: false })
  autoQueue: boolean & Opt = false;

  @Property({ type: 'text', default: 'pending' })
  status: TaskStatus & Opt = 'pending';

  /** Executions tried so far. */
  @Property({ type: 'integer', default: 0 })
  attempts: number & Opt = 0;

  /** When its latest attempt started: a rule's minimum gap is measured from it, across the contact's tasks. */
  @Property({ type: 'datetime', nullable: true })
  lastAttemptAt: Date | null = null;

  /** When the runner next looks at it (the due time of its pending bus message). */
  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'json', nullable: true })
  result: unknown = null;
}
