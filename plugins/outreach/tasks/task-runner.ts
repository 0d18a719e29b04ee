import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OutreachRule } from '../entities';
import { Task, WAITING_STATUSES, type TaskStatus } from '../entities/task.entity';
import { contactGapHold } from './contact-gap';
import { armDue } from './due-messages';
import type { TasksRuntime } from './tasks-runtime';
import { retryDelayMinutes } from './retry-delay';
import { nextAllowedSlot } from './rule-window';
import { DUE_SLACK_MS, claimNextDue, lockIfFree } from './task-claim';
import { openTaskSecret } from './task-secret';
import { PendingAttempt } from './task-executors';
import { TASK_TOPICS, type TaskDue, type TaskEvent } from './task-topics';
import { taskJson } from './task-view';
import { isTimeZone } from './zoned-time';

/** What settling an attempt's outcome uses of the runtime. */
type Outcomes = Pick<TasksRuntime, 'bus' | 'logger'>;

/** How a pending attempt ended (settleAttempt). */
export type AttemptOutcome = { status: 'completed'; result: unknown } | { status: 'failed'; error: string };

/** Due tasks run at once per process (each holds a database connection while its executor works). */
export const TASK_RUNNER_CONCURRENCY = 4;

const MINUTE_MS = 60_000;
const MAX_ERROR_LENGTH = 2000;

/**
 * The runner: one consumer of due messages.
 *
 * Priority. A due message does not run the task it names but the tenant's best due
 * task (claimNextDue: lowest priority number, then longest due), so when many are due
 * the most urgent run first, whatever order their messages come in. Each waiting task
 * has a due message, so the messages are never fewer than the due tasks: the message
 * whose turn another task took re-arms its own task (keepArmed), due at once, and
 * that task runs when it is the best left. Stale messages (the task was edited, run
 * by another message, cancelled) find their task no longer due and only re-arm it
 * when it still waits.
 *
 * Once. The claim locks the task row (`FOR UPDATE SKIP LOCKED`) for the whole attempt,
 * which is the message's transaction: the attempt's outcome commits with it, and a
 * second worker (a duplicate message, another process) skips the locked task. So
 * `in_progress` is seen only inside that transaction (except for an attempt its
 * executor left pending, settled later by settleAttempt); edits and cancels of a task
 * being run wait for the attempt, then see its outcome.
 *
 * Every writer that leaves a task waiting (create, edit, retry, postponement)
 * publishes its due message in the same transaction: that is what keeps the invariant.
 */
export function registerTaskRunner(runtime: TasksRuntime): void {
  const { bus } = runtime;
  bus.consume<TaskDue>({ name: 'run-due-tasks', topics: [TASK_TOPICS.due], concurrency: TASK_RUNNER_CONCURRENCY }, async (message, { em }) => {
    const own = message.payload?.task_uuid;
    const tenant = message.tenant;
    // Guarded: a filter on an undefined id would match any task.
    if (typeof own !== 'string' || !tenant) return;
    const claimed = await claimNextDue(em, tenant.uuid);
    if (claimed) await runAttempt(runtime, em, claimed.task, claimed.now);
    if (claimed?.task.uuid === own) return;
    await keepArmed(runtime, em, tenant.uuid, own);
  });
}

/** The message's own task, when it still waits and nobody holds it, gets a due message for its time. */
async function keepArmed(runtime: TasksRuntime, em: EntityManager, tenantUuid: string, taskUuid: string): Promise<void> {
  const timing = await lockIfFree(em, tenantUuid, taskUuid);
  if (!timing || !WAITING_STATUSES.includes(timing.status as TaskStatus)) return;
  await armDue(runtime.bus, taskUuid, new Date(Math.max(timing.dueAt.getTime(), timing.now.getTime())));
}

/**
 * One look at a claimed (locked) due task: expire it, postpone it to its rule's next
 * window or to the end of its rule's minimum gap since the contact's latest attempt, or
 * run an attempt and settle the outcome (completed, retry, failed, expired).
 */
async function runAttempt(runtime: TasksRuntime, em: EntityManager, task: Task, now: Date): Promise<void> {
  if (task.expiresAt && task.expiresAt.getTime() <= now.getTime()) return finish(runtime, em, task, 'expired', 'expired before it could run');
  const rule = task.ruleUuid ? await em.findOne(OutreachRule, { uuid: task.ruleUuid }) : null;
  // An inactive (or deleted) rule no longer constrains its tasks.
  const activeRule = rule?.isActive ? rule : null;
  if (activeRule) {
    if (task.attempts >= activeRule.maxAttempts) return finish(runtime, em, task, 'failed', `its rule allows ${activeRule.maxAttempts} attempts`);
    const zone = await zoneOf(runtime, task, activeRule);
    const slot = nextAllowedSlot(now, activeRule, zone);
    if (!slot) return finish(runtime, em, task, 'failed', 'its rule allows no weekday to run on');
    if (slot.getTime() > now.getTime() + DUE_SLACK_MS) {
      if (task.expiresAt && slot.getTime() >= task.expiresAt.getTime()) return finish(runtime, em, task, 'expired', 'its rule’s next window opens after it expires');
      return reschedule(runtime, em, task, slot);
    }
    // The window is checked again when it comes due (the gap may end after the window closes).
    const held = await contactGapHold(em, task, activeRule, now);
    if (held) {
      if (task.expiresAt && held.getTime() >= task.expiresAt.getTime()) return finish(runtime, em, task, 'expired', 'its rule’s minimum gap since the contact’s last attempt ends after it expires');
      return reschedule(runtime, em, task, held);
    }
  }
  const executor = runtime.executors.find((candidate) => candidate.type === task.type);
  if (!executor) return finish(runtime, em, task, 'failed', `no executor for ${task.type} tasks is installed`);

  task.status = 'in_progress';
  task.startedAt ??= now;
  task.attempts += 1;
  task.lastAttemptAt = now;
  task.nextAttemptAt = null;
  await em.flush();
  let result: unknown;
  try {
    // Under a savepoint: a failing executor leaves none of its writes or messages.
    result = await em.transactional(async (savepoint) => {
      const returned = await executor.execute({
        task: taskJson(task),
        attempt: task.attempts,
        em: savepoint,
        bus: runtime.bus,
        egress: runtime.egress,
        logger: runtime.logger,
        openSecret: () => openTaskSecret(runtime.secrets, task),
        deps: executor.deps ? runtime.executorDeps.of(executor) : {},
      });
      return returned instanceof PendingAttempt ? returned : asJson(returned);
    });
  } catch (error) {
    return attemptFailed(runtime, em, task, errorMessage(error), activeRule);
  }
  // Its outcome comes later (settleAttempt): it stays in_progress, with no due message.
  if (result instanceof PendingAttempt) return void (await em.flush());
  task.result = result;
  task.lastError = null;
  return finish(runtime, em, task, 'completed', null);
}

/**
 * The outcome of an attempt its executor left pending (PendingAttempt), in the caller's
 * transaction: the task completes with `result`, or the attempt fails with `error` and
 * is retried per the task's strategy and rule like a throwing executor's. Only the
 * attempt it names settles, once: a task no longer `in_progress` at that attempt (an
 * outcome told twice, a late one) is left alone and false is returned.
 */
export async function settleAttempt(runtime: Outcomes, em: EntityManager, taskUuid: string, attempt: number, outcome: AttemptOutcome): Promise<boolean> {
  const task = await em.findOne(Task, { uuid: taskUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!task || task.status !== 'in_progress' || task.attempts !== attempt) return false;
  if (outcome.status === 'completed') {
    task.result = asJson(outcome.result);
    task.lastError = null;
    await finish(runtime, em, task, 'completed', null);
    return true;
  }
  const rule = task.ruleUuid ? await em.findOne(OutreachRule, { uuid: task.ruleUuid }) : null;
  await attemptFailed(runtime, em, task, outcome.error.slice(0, MAX_ERROR_LENGTH), rule?.isActive ? rule : null);
  return true;
}

/** A failed attempt: retried after its strategy's delay (at least the rule's gap, between the retries of this task) while attempts and time remain. */
async function attemptFailed(runtime: Outcomes, em: EntityManager, task: Task, error: string, rule: OutreachRule | null): Promise<void> {
  task.lastError = error;
  runtime.logger.warn('task attempt failed', { task_uuid: task.uuid, type: task.type, attempt: task.attempts, error });
  const allowed = Math.min(1 + task.maxRetryAttempts, rule ? rule.maxAttempts : Infinity);
  if (task.attempts >= allowed) return finish(runtime, em, task, 'failed', error);
  const policy = { strategy: task.retryStrategy, intervalMinutes: task.retryIntervalMinutes, schedule: task.retrySchedule };
  const minutes = Math.max(retryDelayMinutes(policy, task.attempts), rule ? rule.minGapMinutes : 0);
  const next = new Date(Date.now() + minutes * MINUTE_MS);
  if (task.expiresAt && next.getTime() >= task.expiresAt.getTime()) return finish(runtime, em, task, 'expired', error);
  return reschedule(runtime, em, task, next);
}

/** Back to waiting until `at` (a retry or a rule window), with its due message. */
async function reschedule(runtime: Outcomes, em: EntityManager, task: Task, at: Date): Promise<void> {
  task.status = 'scheduled';
  task.nextAttemptAt = at;
  await em.flush();
  await armDue(runtime.bus, task.uuid, at);
}

const FINAL_TOPICS: Partial<Record<TaskStatus, string>> = { completed: TASK_TOPICS.completed, failed: TASK_TOPICS.failed, expired: TASK_TOPICS.expired };

/** A final state, announced as `task.<status>` in the same transaction. */
async function finish(runtime: Outcomes, em: EntityManager, task: Task, status: 'completed' | 'failed' | 'expired', error: string | null): Promise<void> {
  task.status = status;
  task.finishedAt = new Date();
  task.nextAttemptAt = null;
  if (error !== null) task.lastError = error;
  await em.flush();
  const event: TaskEvent = { task: taskJson(task) };
  await runtime.bus.publish(FINAL_TOPICS[status]!, event);
}

/** A rule's window is read in the contact's zone, else the task's, else the rule's. */
async function zoneOf(runtime: TasksRuntime, task: Task, rule: OutreachRule): Promise<string> {
  const contact = (await runtime.contacts.get([task.contactUuid])).get(task.contactUuid);
  for (const zone of [contact?.timezone, task.timezone, rule.timezone]) if (zone && isTimeZone(zone)) return zone;
  return 'UTC';
}

/** The executor's result as stored (JSON); one JSON cannot hold fails the attempt. */
function asJson(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value));
}

function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
