import { newUuid, type BusService } from '../../core';
import type { AgentDirectory, AgentWebhookEvent } from '../agents';
import { AgentWebhookDelivery } from './entities';
import { DELIVER_TOPIC, type DeliverMessage } from './topics';

type SourcedEvent = AgentWebhookEvent & { source: NonNullable<AgentWebhookEvent['source']> };

/**
 * One consumer over every topic the catalog names as an event's source: for each
 * message, each event it announces, the agent's active webhooks subscribed to that
 * event get a delivery row and a deliver message, in the consumer's transaction.
 */
export function registerFanOut(bus: BusService, agents: AgentDirectory, catalog: readonly AgentWebhookEvent[]): void {
  const sourced = catalog.filter((event): event is SourcedEvent => Boolean(event.source));
  const topics = [...new Set(sourced.flatMap((event) => event.source.topics))];
  if (topics.length === 0) return;
  bus.consume({ name: 'fan-out', topics, concurrency: 4 }, async (message, { em }) => {
    const messages: DeliverMessage[] = [];
    for (const event of sourced.filter((candidate) => candidate.source.topics.includes(message.topic))) {
      const agentUuid = event.source.agentUuid(message.payload, message.topic);
      if (!agentUuid) continue;
      const subscribers = await agents.webhookSubscribers(agentUuid, event.name);
      if (subscribers.length === 0) continue;
      const data = event.source.data ? event.source.data(message.payload, message.topic) : message.payload;
      const createdAt = new Date();
      const body = JSON.stringify({ type: event.name, timestamp: createdAt.toISOString(), data });
      for (const subscriber of subscribers) {
        const delivery = em.create(AgentWebhookDelivery, { agentUuid, webhookUuid: subscriber.webhookUuid, event: event.name, body, queueToken: newUuid(), createdAt, nextAttemptAt: createdAt });
        messages.push({ delivery_uuid: delivery.uuid, queue_token: delivery.queueToken });
      }
    }
    if (messages.length === 0) return;
    await em.flush();
    await bus.publishMany(DELIVER_TOPIC, messages);
  });
}
