import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  SuccessEnvelope,
  ValidationError,
  defineRoute,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type FieldErrors,
  type Static,
} from '../../../core';
import { Task, WAITING_STATUSES, type RetryStrategy } from '../entities/task.entity';
import { armDue } from './due-messages';
import type { TasksRuntime } from './tasks-runtime';
import { createTask } from './create-task';
import { add, checkRetrySettings, checkTaskData, checkTimeZone } from './task-rules';
import type { TaskScheduler } from './task-scheduler';
import { sealSentSecret, splitTaskData, taskSecretColumn } from './task-secret';
import { TaskCreate, TaskListQuery, TaskParams, TaskUpdate } from './task-schemas';
import { TaskSchema, taskJson } from './task-view';

const tags = ['tasks'];
export const TASK_NOT_FOUND = 'Task not found';
export const TASK_CREATED = 'Task created successfully';

const isWaiting = (task: Task) => WAITING_STATUSES.includes(task.status);

/** Why a task that no longer waits cannot be edited or cancelled. */
function notWaiting(task: Task): ConflictError {
  if (task.status === 'cancelled') return new ConflictError('Task is cancelled');
  if (task.status === 'expired') return new ConflictError('Task has expired');
  return new ConflictError('Task has already started');
}

const lockTask = (em: EntityManager, uuid: string) => em.findOne(Task, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** Create, list, read, edit and cancel tasks. */
export const taskRoutes = (runtime: TasksRuntime, scheduler: TaskScheduler): AnyRoute[] => [createTaskRoute(runtime, scheduler), listTasks, readTask, editTask(runtime), cancelTask];

const createTaskRoute = (runtime: TasksRuntime, scheduler: TaskScheduler) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/tasks',
    summary: 'Create a task',
    description:
      'Schedules a unit of work for an agent: it becomes due at `scheduled_at` (a future time; omitted: now) and is run by the executor of its `type`. ' +
      'The contact is `contact_uuid` (a contact of this tenant) or `contact` (found by `phone_number`, then `email`, else created): exactly one of them. ' +
      'Defaults: `priority` 5, `max_retry_attempts` 3, `retry_interval_minutes` 60, `retry_strategy` `fixed`, `auto_queue` false (`scheduled`; true: `queued`). ' +
      '`retry_strategy: custom` needs `retry_schedule` (minutes before each retry, at most `max_retry_attempts` entries). `expires_at` must be after `scheduled_at`. ' +
      'A type no installed plugin runs is refused (422 at `type`, naming what is missing): `webhook`, `follow_up` and `custom` are built in. ' +
      '`webhook` tasks need `task_data.url` (http or https) and may take `task_data.secret` to sign the call (see the webhook executor); the secret is stored encrypted, apart from the task data, and never returned (`has_secret: true` shows it is set). ' +
      'Every problem is reported at once in one 422.',
    tags,
    body: TaskCreate,
    status: 201,
    response: SuccessEnvelope(TaskSchema),
    handler: async ({ body, em, tenant }) => {
      const task = await createTask(runtime, scheduler, em, tenant.uuid, body);
      return { success: true, message: TASK_CREATED, data: taskJson(task) };
    },
  });

const listTasks = listRoute({
  path: '/api/v1/tasks',
  summary: 'List tasks, by due time',
  description: 'Filters combine: `status`, `agent_uuid`, `contact_uuid`, `campaign_uuid`, `pool_uuid`. Ordered by `scheduled_at`, earliest first.',
  tags,
  query: TaskListQuery,
  item: TaskSchema,
  page: async ({ query, em }) => {
    const where = {
      ...(query.status ? { status: query.status as Task['status'] } : {}),
      ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
      ...(query.contact_uuid ? { contactUuid: query.contact_uuid } : {}),
      ...(query.campaign_uuid ? { campaignUuid: query.campaign_uuid } : {}),
      ...(query.pool_uuid ? { poolUuid: query.pool_uuid } : {}),
    };
    const [rows, total] = await em.findAndCount(Task, where, { orderBy: { scheduledAt: 'asc', uuid: 'asc' }, ...pageWindow(query) });
    return [rows.map(taskJson), total];
  },
});

const readTask = readRoute({
  path: '/api/v1/tasks/:uuid',
  summary: 'Read a task',
  tags,
  params: TaskParams,
  resource: TaskSchema,
  read: async ({ params, em }) => {
    const task = await findByUuid(em, Task, params.uuid);
    if (!task) throw new NotFoundError(TASK_NOT_FOUND);
    return taskJson(task);
  },
});

const editTask = (runtime: TasksRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/tasks/:uuid',
    summary: 'Edit a task that has not started',
    description:
      'Only while it waits (`pending`, `scheduled`, `queued`): otherwise 409 (`Task has already started`, `Task is cancelled`, `Task has expired`). ' +
      'Changes `title`, `description`, `scheduled_at` (future; the next attempt moves to it), `priority`, `expires_at`, `timezone`, the retry settings, `task_data` and `metadata` (both replaced whole). ' +
      '`type`, `agent_uuid`, `contact_uuid`, `campaign_uuid`, `rule_uuid` and `auto_queue` are fixed at creation: they are taken only with their current value (422 otherwise). ' +
      'A new `task_data` is checked as at creation, by the generic rules and by its type’s executor (a send_message template’s `variables` against the template, ...): 422 at `task_data.*`, nothing changed. ' +
      'Switching `retry_strategy` away from `custom` drops the `retry_schedule`. A task being run waits for its attempt to end, then answers 409 or the edit.',
    tags,
    params: TaskParams,
    body: TaskUpdate,
    errors: [404, 409],
    response: DataEnvelope(TaskSchema),
    handler: async ({ params, body, em }) => {
      const task = await lockTask(em, params.uuid);
      if (!task) throw new NotFoundError(TASK_NOT_FOUND);
      if (!isWaiting(task)) throw notWaiting(task);
      const { scheduledAt, expiresAt, retry, sent } = await checkedEdit(runtime, em, task, body);
      if (body.title !== undefined) task.title = body.title;
      if (body.description !== undefined) task.description = body.description;
      if (body.priority !== undefined) task.priority = body.priority;
      if (body.timezone !== undefined) task.timezone = body.timezone;
      if (body.metadata !== undefined) task.metadata = body.metadata;
      if (body.scheduled_at) {
        task.scheduledAt = scheduledAt;
        task.nextAttemptAt = scheduledAt;
      }
      task.expiresAt = expiresAt;
      Object.assign(task, retry);
      task.taskData = sent.data;
      task.webhookSecret = sealSentSecret(runtime.secrets, taskSecretColumn, task.tenantUuid, sent.secret, task.webhookSecret);
      await em.flush();
      // Re-armed whatever changed: the runner may have passed over this task while the edit held it.
      await armDue(runtime.bus, task.uuid, task.nextAttemptAt ?? task.scheduledAt);
      return { data: taskJson(task) };
    },
  });

/**
 * An edit's new times, retry settings and task data, every problem of it reported at once
 * in one 422, before anything of the task is changed. A new `task_data` goes through its
 * type's executor `validate` as at creation (create-task.ts), in the request's transaction
 * (read only); the agent and the contact are fixed and were checked at creation, so only
 * its problems at `task_data.*` are the edit's (as for a campaign's task data).
 */
async function checkedEdit(runtime: Pick<TasksRuntime, 'executors' | 'executorDeps'>, em: EntityManager, task: Task, body: Static<typeof TaskUpdate>) {
  const now = new Date();
  const errors: FieldErrors = {};
  const fixed = { type: task.type, agent_uuid: task.agentUuid, contact_uuid: task.contactUuid, campaign_uuid: task.campaignUuid, rule_uuid: task.ruleUuid, auto_queue: task.autoQueue };
  for (const [member, current] of Object.entries(fixed)) {
    const sent = (body as Record<string, unknown>)[member];
    if (sent !== undefined && sent !== current) add(errors, member, 'cannot be changed (create a new task instead)');
  }
  const scheduledAt = body.scheduled_at ? new Date(body.scheduled_at) : task.scheduledAt;
  if (body.scheduled_at && scheduledAt.getTime() <= now.getTime()) add(errors, 'scheduled_at', 'must be in the future');
  const expiresAt = body.expires_at === undefined ? task.expiresAt : body.expires_at === null ? null : new Date(body.expires_at);
  if (expiresAt && (body.expires_at !== undefined || body.scheduled_at !== undefined)) {
    const path = body.expires_at !== undefined ? 'expires_at' : 'scheduled_at';
    if (expiresAt.getTime() <= scheduledAt.getTime()) add(errors, path, path === 'expires_at' ? 'must be after scheduled_at' : 'must be before expires_at');
    else if (expiresAt.getTime() <= now.getTime()) add(errors, 'expires_at', 'must be in the future');
  }
  checkTimeZone(body.timezone, errors);
  const retryStrategy = (body.retry_strategy ?? task.retryStrategy) as RetryStrategy;
  const retry = {
    maxRetryAttempts: body.max_retry_attempts ?? task.maxRetryAttempts,
    retryIntervalMinutes: body.retry_interval_minutes ?? task.retryIntervalMinutes,
    retryStrategy,
    retrySchedule: body.retry_schedule !== undefined ? body.retry_schedule : retryStrategy === 'custom' ? task.retrySchedule : null,
  };
  checkRetrySettings(retry, errors);
  if (body.task_data) {
    checkTaskData(task.type, body.task_data, errors);
    await executorErrors(runtime, em, task, body.task_data, errors);
  }
  const sent = body.task_data ? splitTaskData(body.task_data) : { data: task.taskData, secret: undefined };
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { scheduledAt, expiresAt, retry, sent };
}

/** The problems the task type's executor finds in a new `task_data`, at `task_data.*` paths. */
async function executorErrors(runtime: Pick<TasksRuntime, 'executors' | 'executorDeps'>, em: EntityManager, task: Task, taskData: Record<string, unknown>, errors: FieldErrors): Promise<void> {
  const executor = runtime.executors.find((candidate) => candidate.type === task.type);
  if (!executor?.validate) return;
  const context = { agent_uuid: task.agentUuid, contact_uuid: task.contactUuid, contact: null, deps: executor.deps ? runtime.executorDeps.of(executor) : {} };
  for (const [path, messages] of Object.entries(await executor.validate(em, taskData, context))) {
    if (path.startsWith('task_data.')) (errors[path] ??= []).push(...messages);
  }
}

const cancelTask = defineRoute({
  method: 'POST',
  path: '/api/v1/tasks/:uuid/cancel',
  summary: 'Cancel a task that has not started',
  description:
    'A waiting task (`pending`, `scheduled`, `queued`) becomes `cancelled` and is never run. Cancelling a cancelled task answers it unchanged. ' +
    'A task that started or ended (`in_progress`, `completed`, `failed`, `expired`): 409. A task being run waits for its attempt to end first.',
  tags,
  params: TaskParams,
  errors: [404, 409],
  response: DataEnvelope(TaskSchema),
  handler: async ({ params, em }) => {
    const task = await lockTask(em, params.uuid);
    if (!task) throw new NotFoundError(TASK_NOT_FOUND);
    if (task.status === 'cancelled') return { data: taskJson(task) };
    if (!isWaiting(task)) throw notWaiting(task);
    task.status = 'cancelled';
    task.finishedAt = new Date();
    task.nextAttemptAt = null;
    await em.flush();
    return { data: taskJson(task) };
  },
});
