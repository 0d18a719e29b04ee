import type { BusService } from '../../../core';
import { TASK_TOPICS, dueKey, type TaskDue } from './task-topics';

/**
 * A task's next look by the runner is a delayed bus message due at its
 * `next_attempt_at`. Keyed by the task, so a newer due time (a retry, a postponement,
 * an edit) replaces a message still pending; a message already on its way cannot be
 * replaced, and the runner treats such stale or early ones as harmless (see task-runner.ts).
 */
export async function armDue(bus: BusService, taskUuid: string, at: Date): Promise<void> {
  const payload: TaskDue = { task_uuid: taskUuid };
  await bus.publish(TASK_TOPICS.due, payload, { at, key: dueKey(taskUuid) });
}

/**
 * The first due messages of many new tasks, one statement per distinct due time. They
 * carry no key (publishMany takes none): a later keyed one of the same task does not
 * replace them, which only makes a spare message the runner ignores.
 */
export async function armDueMany(bus: BusService, tasks: ReadonlyArray<{ uuid: string; nextAttemptAt: Date | null; scheduledAt: Date }>): Promise<void> {
  if (tasks.length === 1) return armDue(bus, tasks[0].uuid, tasks[0].nextAttemptAt ?? tasks[0].scheduledAt);
  const byTime = new Map<number, TaskDue[]>();
  for (const task of tasks) {
    const at = (task.nextAttemptAt ?? task.scheduledAt).getTime();
    let group = byTime.get(at);
    if (!group) byTime.set(at, (group = []));
    group.push({ task_uuid: task.uuid });
  }
  for (const [at, payloads] of byTime) await bus.publishMany(TASK_TOPICS.due, payloads, { at: new Date(at) });
}
