import type { BusService } from '../../core';
import type { FlowTriggers } from '../flows';
import { TASK_TOPICS, type TaskEvent } from '../outreach';

/** Starts the live `task_completed` flows a completed task concerns, in the transaction that records the event as handled. */
export function fireTaskCompleted(bus: BusService, triggers: FlowTriggers): void {
  bus.consume<TaskEvent>({ name: 'fire-task-completed', topics: [TASK_TOPICS.completed], concurrency: 4 }, async (message) => {
    const { task } = message.payload;
    for (const trigger of await triggers.live('agents', 'task_completed')) {
      if (trigger.agentUuid && trigger.agentUuid !== task.agent_uuid) continue;
      const types = trigger.config.types as string[] | undefined;
      if (types && !types.includes(task.type)) continue;
      await triggers.fire(trigger, message.payload);
    }
  });
}
