import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, DataEnvelope, NotFoundError, PageQuery, ResourceId, Type, Uuid, defineRoute, listRoute, pageWindow, type AnyRoute, type BusService } from '../../core';
import type { AgentDirectory } from '../agents';
import { AgentWebhookDelivery } from './entities';
import { requeue } from './delivery';

const tags = ['agent-webhooks'];
export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const DELIVERY_NOT_FOUND = 'Delivery not found';
export const ALREADY_SUCCEEDED = 'The delivery already succeeded: the endpoint acknowledged it, so it is not sent again';

const DeliverySchema = Type.Object({
  uuid: Uuid({ description: 'Also the `webhook-id` header of every attempt' }),
  event: Type.String({ description: 'The event name (the body’s `type`)' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null when none answered' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next attempt is due; null once succeeded or failed' }),
  created_at: Type.String({ format: 'date-time' }),
});

const WebhookParams = Type.Object({
  uuid: ResourceId('agents.agent', 'The agent’s uuid'),
  webhookUuid: ResourceId('agents.webhook', 'The webhook’s uuid'),
});
const DeliveryParams = Type.Object({ ...WebhookParams.properties, deliveryUuid: ResourceId('agent-webhooks.delivery', 'The delivery’s uuid') });

const json = (row: AgentWebhookDelivery) => ({
  uuid: row.uuid,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  last_status_code: row.lastStatusCode,
  last_error: row.lastError,
  next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

const DELIVERY_DOC =
  'Each event an agent webhook subscribes to is POSTed to its URL as JSON `{type, timestamp, data}` (Standard Webhooks): ' +
  'headers `webhook-id` (the delivery uuid, the same on every attempt), `webhook-timestamp` (unix seconds of the attempt), ' +
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` (key: the secret base64-decoded after a `whsec_` prefix, ' +
  'else its UTF-8 bytes; no secret, no signature) and `content-type: application/json`. Any 2xx succeeds; otherwise it is retried after ' +
  'AGENT_WEBHOOKS_RETRY_SCHEDULE (default 5s, 30s, 2m, 10m, 1h, 6h, with jitter), then failed. A URL the egress policy refuses, or a webhook ' +
  'deleted, deactivated or unsubscribed meanwhile, fails at once.';

/** `GET …/webhooks/{webhookUuid}/deliveries` and `POST …/deliveries/{deliveryUuid}/retry`. */
export const deliveryRoutes = (bus: BusService, agents: AgentDirectory): AnyRoute[] => [listDeliveries(agents), retryDelivery(bus, agents)];

/** The webhook must be the agent's, in this tenant (row-level security scopes the rows; this scopes the path). */
async function findWebhook(agents: AgentDirectory, em: EntityManager, params: { uuid: string; webhookUuid: string }): Promise<void> {
  const webhook = await em.getConnection().execute(`select 1 from agent_webhooks where uuid = ? and agent_uuid = ?`, [params.webhookUuid, params.uuid], 'all', em.getTransactionContext());
  if (webhook.length === 0 || !(await agents.exists(params.uuid))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
}

const listDeliveries = (agents: AgentDirectory) =>
  listRoute({
    path: '/api/v1/agents/:uuid/webhooks/:webhookUuid/deliveries',
    summary: 'List a webhook’s deliveries, newest first',
    description: DELIVERY_DOC,
    tags,
    params: WebhookParams,
    query: PageQuery(),
    errors: [404],
    item: DeliverySchema,
    page: async ({ params, query, em }) => {
      await findWebhook(agents, em, params);
      const [rows, total] = await em.findAndCount(AgentWebhookDelivery, { agentUuid: params.uuid, webhookUuid: params.webhookUuid }, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
      return [rows.map(json), total];
    },
  });

const retryDelivery = (bus: BusService, agents: AgentDirectory) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/agents/:uuid/webhooks/:webhookUuid/deliveries/:deliveryUuid/retry',
    summary: 'Retry a delivery now',
    description:
      'Queues one attempt now of a pending or failed delivery (the same body, `webhook-id` and the webhook’s current URL and secret); a queued delayed retry is superseded. ' +
      'A succeeded delivery is not sent again: 409. Answers 202 with the delivery as queued.',
    tags,
    params: DeliveryParams,
    status: 202,
    errors: [404, 409],
    response: DataEnvelope(DeliverySchema),
    handler: async ({ params, em }) => {
      await findWebhook(agents, em, params);
      // Locked as the delivery consumer locks it to record an attempt: an attempt succeeding
      // meanwhile is seen here (409) rather than overwritten with `pending` and sent again.
      const delivery = await em.findOne(
        AgentWebhookDelivery,
        { uuid: params.deliveryUuid, agentUuid: params.uuid, webhookUuid: params.webhookUuid },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!delivery) throw new NotFoundError(DELIVERY_NOT_FOUND);
      // The endpoint acknowledged it (2xx): another copy would be a duplicate event for the receiver.
      if (delivery.status === 'succeeded') throw new ConflictError(ALREADY_SUCCEEDED);
      await requeue(bus, delivery);
      return { data: json(delivery) };
    },
  });
