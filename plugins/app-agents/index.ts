import { coreServices, definePlugin } from '../../core';
import { agentWriterRef, type AgentWriter } from '../agents';
import { flowApps, flowTriggersRef } from '../flows';
import { consumeAgentUpdates } from './agent-updated-consumer';
import { createAgentsApp } from './agents-app';

// App definitions are contributed before any plugin's init; the writer service is handed
// over in init, so the app reads it when a step runs. The writer works in the current
// tenant and transaction, whichever request or message that is.
let writer: AgentWriter | undefined;

export const agentsApp = createAgentsApp(() => {
  if (!writer) throw new Error('the app-agents plugin has not been initialised');
  return writer;
});

export default definePlugin({
  id: 'app-agents',
  dependsOn: ['flows', 'agents'],
  contributes: [flowApps.add(agentsApp)],
  deps: { bus: coreServices.bus, triggers: flowTriggersRef, agents: agentWriterRef },
  init({ bus, triggers, agents }) {
    writer = agents;
    consumeAgentUpdates(bus, triggers);
  },
});
