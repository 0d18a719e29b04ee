import type { EntityManager } from '@mikro-orm/postgresql';
import { contributeWithDeps, contributedDepsRef, createExtensionPoint, type BusService, type DepsMap, type Egress, type FieldErrors, type Logger } from '../../../core';
import type { TaskJson } from './task-view';

/** What an executor gets to run one attempt of a task. */
export interface TaskExecutionContext {
  task: TaskJson;
  /** 1 for the first attempt. */
  attempt: number;
  /** The attempt's transaction (what the executor writes commits with the task's new state). */
  em: EntityManager;
  bus: BusService;
  egress: Egress;
  logger: Logger;
  /**
   * The task's write-only `task_data.secret`, decrypted on call; null when it has none.
   * For the attempt's own use (the webhook executor signs with it): never put it in a
   * result, an event or a log line.
   */
  openSecret(): string | null;
  /** The services the executor named in its `deps`, as its plugin handed them over (`contributeTaskExecutor`); empty when it names none. */
  deps: Readonly<Record<string, unknown>>;
}

/** What a task being created is for, beside its `task_data`: an executor's `validate` may check them (the agent can call, the contact has a number). */
export interface TaskValidationContext {
  agent_uuid: string;
  /** Given, or null when the body brings an inline `contact`. */
  contact_uuid: string | null;
  /** The body's inline `contact` (found or created only after validation), or null. */
  contact: { phone_number?: string | null; email?: string | null } | null;
  /** As for `execute`: the services the executor named in its `deps`. */
  deps: Readonly<Record<string, unknown>>;
}

/**
 * What `execute` returns when its attempt goes on outside the runner (a call placed
 * after the attempt commits, answered or not minutes later): the task stays
 * `in_progress`, and its outcome comes through `OutreachTasks.settle` with the attempt's
 * number, which completes it or fails the attempt (retried per its strategy) as a
 * returning or throwing `execute` would.
 */
export class PendingAttempt {
  readonly pending = true;
}
export const pendingAttempt = () => new PendingAttempt();

/**
 * Runs tasks of one type: `webhook` and `follow_up`/`custom` are built in; calls and
 * channel plugins add `make_call`, `send_message`, ... A task of a type with no
 * executor is refused at creation (422), so no task exists that can never run.
 */
export interface TaskExecutor {
  type: string;
  description: string;
  /**
   * Runs one attempt. Returns the task's `result` (completed); throws to fail the
   * attempt (retried per the task's strategy until its attempts are spent); returns
   * `pendingAttempt()` when the outcome comes later (see PendingAttempt).
   */
  execute(context: TaskExecutionContext): Promise<unknown>;
  /**
   * What `task_data` must hold beyond its generic checks, at task creation in the creating
   * transaction (read only): problems at `task_data.<member>` paths (or at the body's
   * `agent_uuid`, `contact_uuid`, `contact.*`, `type`) answer 422.
   */
  validate?(em: EntityManager, taskData: Record<string, unknown>, context: TaskValidationContext): Promise<FieldErrors>;
  /** The services `execute` uses, by name (a plugin's `deps`); contribute the executor with `contributeTaskExecutor` so they are resolved. */
  deps?: DepsMap;
}

export const taskExecutors = createExtensionPoint<TaskExecutor>({ id: 'outreach.taskExecutors', keyOf: (executor) => executor.type });

/** Where plugins hand over the services their executors name (one per kernel). */
export const taskExecutorDepsRef = contributedDepsRef<TaskExecutor>('outreach.taskExecutorDeps');

/**
 * The `definePlugin` members of a plugin that adds an executor naming `deps`: the kernel
 * resolves them as the plugin's own and its init hands them over, for `context.deps`.
 *
 *   export default definePlugin({ ...contributeTaskExecutor(sendMessageExecutor) });   // id and dependsOn: plugin.json
 */
export const contributeTaskExecutor = (executor: TaskExecutor) => contributeWithDeps(taskExecutors, executor, taskExecutorDepsRef);
