import { coreServices, definePlugin } from '../../core';
import { flowAppExtensions, flowTriggersRef } from '../flows';
import { outreachTasksRef, type OutreachTasks } from '../outreach';
import { fireTaskCompleted } from './fire-task-completed';
import { createTaskAction, taskCompleted } from './task-steps';

// App extensions are contributed before any plugin's init; the tasks service is handed
// over in init, so the action reads it when a step runs (in that step's tenant and transaction).
let tasks: OutreachTasks | undefined;
const createTask = createTaskAction(() => {
  if (!tasks) throw new Error('the app-outreach plugin has not been initialised');
  return tasks;
});

/**
 * Outreach in the flow studio: the `agents` app (plugin app-agents) gains the action
 * `create_task` and the trigger `task_completed`, through the flows plugin's
 * `flowAppExtensions` point.
 */
export default definePlugin({
  id: 'app-outreach',
  dependsOn: ['flows', 'app-agents', 'outreach'],
  contributes: [flowAppExtensions.add({ app: 'agents', by: 'app-outreach', actions: [createTask], triggers: [taskCompleted] })],
  deps: { bus: coreServices.bus, triggers: flowTriggersRef, outreachTasks: outreachTasksRef },
  init({ bus, triggers, outreachTasks }) {
    tasks = outreachTasks;
    fireTaskCompleted(bus, triggers);
  },
});
