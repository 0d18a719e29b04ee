import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, type FieldErrors, type Static } from '../../../core';
import { Campaign, OutreachRule } from '../entities';
import type { RetryStrategy, Task } from '../entities/task.entity';
import type { TasksRuntime } from './tasks-runtime';
import { add, checkExecutor, checkRetrySettings, checkTaskData, checkTimeZone } from './task-rules';
import type { TaskScheduler } from './task-scheduler';
import { sealSentSecret, splitTaskData, taskSecretColumn } from './task-secret';
import type { TaskCreate } from './task-schemas';

export type TaskCreateBody = Static<typeof TaskCreate>;

/**
 * Creates one task of the tenant from the create body (`POST /api/v1/tasks`, the
 * `create_task` flow step), in the caller's transaction: every rule of the body is
 * checked and all problems reported in one ValidationError before anything is looked
 * up or written.
 */
export async function createTask(
  runtime: Pick<TasksRuntime, 'agents' | 'contacts' | 'executors' | 'secrets' | 'executorDeps'>,
  scheduler: TaskScheduler,
  em: EntityManager,
  tenantUuid: string,
  body: TaskCreateBody,
): Promise<Task> {
  const { agents, contacts, executors, secrets } = runtime;
  const now = new Date();
  const errors: FieldErrors = {};
  const scheduledAt = body.scheduled_at ? new Date(body.scheduled_at) : now;
  if (body.scheduled_at && scheduledAt.getTime() <= now.getTime()) add(errors, 'scheduled_at', 'must be in the future');
  const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= scheduledAt.getTime()) add(errors, 'expires_at', 'must be after scheduled_at');
  checkExecutor(body.type, executors, errors);
  checkTimeZone(body.timezone, errors);
  const retry = {
    maxRetryAttempts: body.max_retry_attempts ?? 3,
    retryIntervalMinutes: body.retry_interval_minutes ?? 60,
    retryStrategy: (body.retry_strategy ?? 'fixed') as RetryStrategy,
    retrySchedule: body.retry_schedule ?? null,
  };
  checkRetrySettings(retry, errors);
  checkTaskData(body.type, body.task_data ?? {}, errors);
  const contactItem = body.contact ?? null;
  const contactUuid = body.contact_uuid ?? null;
  const executor = executors.find((candidate) => candidate.type === body.type);
  if (executor?.validate) {
    const context = { agent_uuid: body.agent_uuid, contact_uuid: contactUuid, contact: contactItem, deps: executor.deps ? runtime.executorDeps.of(executor) : {} };
    for (const [path, messages] of Object.entries(await executor.validate(em, body.task_data ?? {}, context))) (errors[path] ??= []).push(...messages);
  }
  const { data: taskData, secret } = splitTaskData(body.task_data ?? {});
  if (contactItem && contactUuid) add(errors, 'contact', 'cannot be given with contact_uuid: give one of them');
  else if (!contactItem && !contactUuid) add(errors, 'contact', 'is required when contact_uuid is absent');
  else if (contactItem && !contactItem.phone_number && !contactItem.email) add(errors, 'contact', 'needs a phone_number or an email');
  if (!(await agents.exists(body.agent_uuid))) add(errors, 'agent_uuid', 'is not an agent of this tenant');
  if (contactUuid && !contactItem && !(await contacts.get([contactUuid])).has(contactUuid)) add(errors, 'contact_uuid', 'is not a contact of this tenant');
  if (body.campaign_uuid && !(await em.findOne(Campaign, { uuid: body.campaign_uuid }, { fields: ['uuid'] }))) add(errors, 'campaign_uuid', 'is not a campaign of this tenant');
  if (body.rule_uuid && !(await em.findOne(OutreachRule, { uuid: body.rule_uuid }, { fields: ['uuid'] }))) add(errors, 'rule_uuid', 'is not a rule of this tenant');
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  // Last, so a refused request does not look anyone up or create anyone (the transaction would undo it anyway).
  const contact = contactItem ? (await contacts.findOrCreate(contactItem, 'contact')).contact.uuid : contactUuid!;
  const [task] = await scheduler.create(em, [
    {
      type: body.type,
      agentUuid: body.agent_uuid,
      contactUuid: contact,
      scheduledAt,
      title: body.title ?? '',
      description: body.description ?? '',
      campaignUuid: body.campaign_uuid ?? null,
      ruleUuid: body.rule_uuid ?? null,
      timezone: body.timezone ?? null,
      priority: body.priority ?? 5,
      expiresAt,
      ...retry,
      taskData,
      webhookSecret: sealSentSecret(secrets, taskSecretColumn, tenantUuid, secret ?? null, null),
      metadata: body.metadata ?? {},
      autoQueue: body.auto_queue ?? false,
    },
  ]);
  return task;
}
