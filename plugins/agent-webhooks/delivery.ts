import { LockMode } from '@mikro-orm/core';
import { EgressRefusedError, boundQuery, newUuid, preparedStatement, type BusService, type Egress } from '../../core';
import type { AgentDirectory } from '../agents';
import { AgentWebhookDelivery } from './entities';
import { webhookHeaders } from './signature';
import { DELIVER_TOPIC, type DeliverMessage } from './topics';

export const WEBHOOK_GONE = 'The webhook was deleted, deactivated or no longer subscribes to this event';

export interface DeliverySettings {
  /** Waits before each retry (ms); attempts in all = 1 + its length. */
  schedule: number[];
  timeoutMs: number;
  concurrency: number;
}

/** What one attempt came to; the handler records it. */
type Attempt =
  | { kind: 'stale' }
  | { kind: 'gone' }
  | { kind: 'refused'; error: string }
  | { kind: 'answered'; status: number; error: string | null }
  | { kind: 'unreachable'; error: string };

/**
 * A succeeded attempt recorded by one statement, which locks the row itself, and only
 * while the row is still this message's (pending, its queue token): the common case
 * without the locked re-read and the ORM's flush. A manual retry holding the row is
 * waited for, and then its new token makes this a no-op.
 */
const RECORD_SUCCESS = preparedStatement(
  'agent-webhooks.record-success',
  "update agent_webhook_deliveries set status = 'succeeded', attempts = attempts + 1, last_status_code = $3, last_error = null, next_attempt_at = null, updated_at = $4 " +
    "where uuid = $1 and status = 'pending' and queue_token = $2",
);

/** What an attempt sends, read before it while the row is still this message's (pending, its queue token). */
const ATTEMPT_ROW = preparedStatement(
  'agent-webhooks.attempt-row',
  "select agent_uuid, webhook_uuid, event, body from agent_webhook_deliveries where uuid = $1 and tenant_uuid = $2 and status = 'pending' and queue_token = $3",
);
interface AttemptRow {
  agent_uuid: string;
  webhook_uuid: string;
  event: string;
  body: string;
}

const ok = (status: number) => status >= 200 && status < 300;
const jittered = (ms: number) => Math.round(ms * (0.9 + Math.random() * 0.2));

/**
 * The delivery consumer: `prepare` POSTs (no transaction held while the endpoint
 * answers), the handler records the outcome and queues the next attempt as a delayed
 * bus message. An endpoint's failures are the delivery's own retries; the bus's retry
 * is left for infrastructure errors (the database, the broker).
 */
export function registerDelivery(bus: BusService, egress: Egress, agents: AgentDirectory, settings: DeliverySettings): void {
  bus.consume<DeliverMessage, Attempt>(
    {
      name: 'deliver',
      topics: [DELIVER_TOPIC],
      concurrency: Math.max(1, settings.concurrency),
      // A message already handled finds its row settled or re-queued under another token: its prepare sends
      // nothing (stale) and its handler writes nothing (every write is guarded by the token). So no inbox.
      prepareSeesHandled: true,
      inbox: false,
      prepare: async (message, { em }) => {
        const [delivery] = await boundQuery<AttemptRow>(em, ATTEMPT_ROW, [message.payload.delivery_uuid, message.tenant!.uuid, message.payload.queue_token]);
        if (!delivery) return { kind: 'stale' };
        const target = await agents.webhookSubscriber(delivery.agent_uuid, delivery.webhook_uuid, delivery.event);
        if (!target) return { kind: 'gone' };
        const headers = webhookHeaders(message.payload.delivery_uuid, delivery.body, target.secret);
        try {
          const response = await egress.request(target.url, { method: 'POST', headers, body: delivery.body, timeoutMs: settings.timeoutMs, retries: 0, maxRedirects: 0 });
          return { kind: 'answered', status: response.status, error: ok(response.status) ? null : `The endpoint answered ${response.status}` };
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          if (error instanceof EgressRefusedError) return { kind: 'refused', error: `The webhook URL is refused by the egress policy: ${text}` };
          return { kind: 'unreachable', error: text };
        }
      },
    },
    async (message, { em, prepared }) => {
      if (prepared.kind === 'answered' && !prepared.error) {
        await boundQuery(em, RECORD_SUCCESS, [message.payload.delivery_uuid, message.payload.queue_token, prepared.status, new Date()]);
        return;
      }
      const delivery = await em.findOne(AgentWebhookDelivery, { uuid: message.payload.delivery_uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      // Re-queued or finished while the attempt was in flight: the newer message decides.
      if (!delivery || delivery.status !== 'pending' || delivery.queueToken !== message.payload.queue_token) return;
      // Prepare saw no current row but the transaction does: nothing was sent; the bus delivers it again.
      if (prepared.kind === 'stale') throw new Error(`delivery ${delivery.uuid} was not readable before its attempt`);
      const finish = (status: 'succeeded' | 'failed', error: string | null) => {
        delivery.status = status;
        delivery.lastError = error;
        delivery.nextAttemptAt = null;
      };
      if (prepared.kind === 'gone') return finish('failed', WEBHOOK_GONE);
      delivery.attempts += 1;
      delivery.lastStatusCode = prepared.kind === 'answered' ? prepared.status : null;
      if (prepared.kind === 'refused') return finish('failed', prepared.error);
      const wait = settings.schedule[delivery.attempts - 1];
      if (wait === undefined) return finish('failed', prepared.error);
      const delay = jittered(wait);
      delivery.lastError = prepared.error;
      delivery.nextAttemptAt = new Date(Date.now() + delay);
      delivery.queueToken = newUuid();
      await bus.publish(DELIVER_TOPIC, { delivery_uuid: delivery.uuid, queue_token: delivery.queueToken } satisfies DeliverMessage, { delay });
    },
  );
}

/** Queues a pending or failed delivery for an attempt now (the manual retry; the route refuses a succeeded one); a newer token retires any queued message. */
export async function requeue(bus: BusService, delivery: AgentWebhookDelivery): Promise<void> {
  delivery.status = 'pending';
  delivery.nextAttemptAt = new Date();
  delivery.queueToken = newUuid();
  await bus.publish(DELIVER_TOPIC, { delivery_uuid: delivery.uuid, queue_token: delivery.queueToken } satisfies DeliverMessage);
}
