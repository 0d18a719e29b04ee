import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint, type BusService, type Egress, type Logger } from '../../../core';
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
}

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
   * attempt (retried per the task's strategy until its attempts are spent).
   */
  execute(context: TaskExecutionContext): Promise<unknown>;
}

export const taskExecutors = createExtensionPoint<TaskExecutor>({ id: 'outreach.taskExecutors', keyOf: (executor) => executor.type });
