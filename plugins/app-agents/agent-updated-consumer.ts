import type { BusService } from '../../core';
import { AGENT_TOPICS, type AgentChangedEvent } from '../agents';
import type { FlowTriggers, LiveTrigger } from '../flows';
import { causeOf } from './agents-app';

function matches(trigger: LiveTrigger, event: AgentChangedEvent, causedBy: string | undefined): boolean {
  if (trigger.agentUuid && trigger.agentUuid !== event.agent_uuid) return false;
  const members = trigger.config.when_changed as string[] | undefined;
  if (members && !members.some((member) => event.changed.includes(member))) return false;
  // A flow's own update_agent step does not start it again.
  return causedBy !== causeOf(trigger.flowUuid);
}

/** Starts the live `agent_updated` flows an agent change concerns, in the transaction that records the event as handled. */
export function consumeAgentUpdates(bus: BusService, triggers: FlowTriggers): void {
  bus.consume<AgentChangedEvent>({ name: 'fire-agent-updated', topics: [AGENT_TOPICS.updated], concurrency: 4 }, async (message) => {
    for (const trigger of await triggers.live('agents', 'agent_updated')) {
      if (matches(trigger, message.payload, message.headers['caused-by'])) await triggers.fire(trigger, message.payload);
    }
  });
}
