import type { BusService } from '../../core';
import { CONVERSATION_TOPICS, type Channel, type ConversationEvent } from '../conversations';
import { EVALUATION_TOPICS, type SessionEvaluatedEvent } from '../evaluation';
import type { FlowTriggers, LiveTrigger } from '../flows';

function concerns(trigger: LiveTrigger, event: { agent_uuid: string; channel: Channel }): boolean {
  if (trigger.agentUuid && trigger.agentUuid !== event.agent_uuid) return false;
  const channels = trigger.config.channels as Channel[] | undefined;
  return !channels || channels.includes(event.channel);
}

/** Starts the live flows each event concerns, in the transaction that records the event as handled. */
export function fireConversationTriggers(bus: BusService, triggers: FlowTriggers): void {
  bus.consume<ConversationEvent>({ name: 'fire-conversation-closed', topics: [CONVERSATION_TOPICS.closed], concurrency: 4 }, async (message) => {
    for (const trigger of await triggers.live('agents', 'conversation_closed')) {
      if (concerns(trigger, message.payload)) await triggers.fire(trigger, message.payload);
    }
  });
  bus.consume<SessionEvaluatedEvent>({ name: 'fire-session-evaluated', topics: [EVALUATION_TOPICS.evaluated], concurrency: 4 }, async (message) => {
    for (const trigger of await triggers.live('agents', 'session_evaluated')) {
      const wanted = trigger.config.success as boolean | undefined;
      if (concerns(trigger, message.payload) && (wanted === undefined || message.payload.success === wanted)) await triggers.fire(trigger, message.payload);
    }
  });
}
