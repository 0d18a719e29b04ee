import type { TaskJson } from './task-view';

/**
 * Bus topics of the tasks folder. `task.*` are published in the transaction that
 * settles the task, for flows (the `agents` app's `task_completed` trigger) and other
 * plugins; the due topic is the runner's own.
 */
export const TASK_TOPICS = {
  /** Internal: a task's (or a retry's, or a postponed run's) due time came; payload `{task_uuid}`. */
  due: 'outreach.task-due',
  completed: 'task.completed',
  failed: 'task.failed',
  expired: 'task.expired',
  /** Published by the built-in `follow_up` executor, for flows to act on. */
  followUp: 'task.follow_up',
  /** Published by the built-in `custom` executor, for flows to act on. */
  custom: 'task.custom',
} as const;

/** Payload of every `task.*` topic. */
export interface TaskEvent {
  task: TaskJson;
}

/** Payload of the due message. */
export interface TaskDue {
  task_uuid: string;
}

/** The due message's key: a newer due time of the same task replaces its pending message. */
export const dueKey = (taskUuid: string) => `task:${taskUuid}`;
