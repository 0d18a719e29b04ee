import { boundQuery, newUuid, preparedStatement, type BusService } from '../../core';
import type { AgentDirectory, AgentWebhookEvent, WebhookSubscriber } from '../agents';
import { DELIVER_TOPIC, type DeliverMessage } from './topics';

/** A batch's delivery rows, one per event and subscribed webhook, in one statement (run for every batch of events published: prepared, no unit of work). */
const INSERT_DELIVERIES = preparedStatement(
  'agent-webhooks.insert-deliveries',
  'insert into agent_webhook_deliveries (uuid, tenant_uuid, created_at, updated_at, agent_uuid, webhook_uuid, event, body, status, attempts, queue_token, next_attempt_at) ' +
    "select d.uuid, $1, $2, $2, d.agent_uuid, d.webhook_uuid, d.event, d.body, 'pending', 0, d.queue_token, $2 " +
    'from unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::uuid[]) as d(uuid, agent_uuid, webhook_uuid, event, body, queue_token)',
);

type SourcedEvent = AgentWebhookEvent & { source: NonNullable<AgentWebhookEvent['source']> };

interface Row {
  uuid: string;
  agentUuid: string;
  webhookUuid: string;
  event: string;
  body: string;
  queueToken: string;
}

/**
 * One batch consumer over every topic the catalog names as an event's source: for each
 * message, each event it announces, the agent's active webhooks subscribed to that
 * event get a delivery row and a deliver message, in the consumer's transaction. The
 * messages that arrive together (one tenant's) share one read of each agent's
 * subscribers, one INSERT of the rows and one of the deliver messages.
 */
export function registerFanOut(bus: BusService, agents: AgentDirectory, catalog: readonly AgentWebhookEvent[]): void {
  const sourced = catalog.filter((event): event is SourcedEvent => Boolean(event.source));
  const topics = [...new Set(sourced.flatMap((event) => event.source.topics))];
  if (topics.length === 0) return;
  bus.consumeBatch({ name: 'fan-out', topics, concurrency: 4 }, async (messages, { em }) => {
    const subscribed = new Map<string, Promise<WebhookSubscriber[]>>();
    const rows: Row[] = [];
    const createdAt = new Date();
    const timestamp = createdAt.toISOString();
    for (const message of messages) {
      for (const event of sourced) {
        if (!event.source.topics.includes(message.topic)) continue;
        const agentUuid = event.source.agentUuid(message.payload, message.topic);
        if (!agentUuid) continue;
        const key = `${agentUuid} ${event.name}`;
        if (!subscribed.has(key)) subscribed.set(key, agents.webhookSubscribers(agentUuid, event.name));
        const subscribers = await subscribed.get(key)!;
        if (subscribers.length === 0) continue;
        const data = event.source.data ? event.source.data(message.payload, message.topic) : message.payload;
        const body = JSON.stringify({ type: event.name, timestamp, data });
        for (const subscriber of subscribers) rows.push({ uuid: newUuid(), agentUuid, webhookUuid: subscriber.webhookUuid, event: event.name, body, queueToken: newUuid() });
      }
    }
    if (rows.length === 0) return;
    await boundQuery(em, INSERT_DELIVERIES, [
      messages[0].tenant!.uuid,
      createdAt,
      rows.map((row) => row.uuid),
      rows.map((row) => row.agentUuid),
      rows.map((row) => row.webhookUuid),
      rows.map((row) => row.event),
      rows.map((row) => row.body),
      rows.map((row) => row.queueToken),
    ]);
    await bus.publishMany(
      DELIVER_TOPIC,
      rows.map((row): DeliverMessage => ({ delivery_uuid: row.uuid, queue_token: row.queueToken })),
    );
  });
}
