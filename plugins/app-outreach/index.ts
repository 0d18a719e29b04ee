import { definePlugin } from '../../core';
import { contributeFlowApp, defineFlowAppExtension } from '../flows';
import { createTask, outreachDeps, taskCompleted } from './task-steps';

/**
 * Outreach in the flow studio: the `agents` app (plugin app-agents) gains the action
 * `create_task` and the trigger `task_completed`, through the flows plugin's
 * `flowAppExtensions` point.
 */
export const outreachExtension = defineFlowAppExtension({ app: 'agents', by: 'app-outreach', deps: outreachDeps, actions: [createTask], triggers: [taskCompleted] });

export default definePlugin({
  ...contributeFlowApp(outreachExtension),
});
