import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, preparedStatement, type BusService, type TenantRef } from '../../../core';
import { CHANNEL_TOPICS, type SendPayload, type SendUnparkPayload } from '../topics';

/**
 * A customer's thread (a channel and a recipient) gets the agent's messages in the order
 * they were queued (`channel_deliveries.seq`), even when one is retried or slow: a send
 * goes only when every earlier delivery of its thread is settled (sent, or failed for
 * good). One that finds an earlier one unsettled parks its payload in its own row
 * (`held_payload`); the earlier one, when it settles, publishes the first unsettled
 * delivery after it again if that one is parked. A retry leaves its delivery unsettled,
 * so the lines after it wait. Rows without a recipient (queued before this) hold nothing
 * up, nor do rows queued longer ago than `sendWaitLimitMs` (a parked send is let go then).
 */

/**
 * Sent already (the provider's id), and whether an earlier delivery of the thread is unsettled: read in `prepare`, in place of the plain id lookup, so no statement is added.
 * Exported for bench/channels' floor, which runs the design's own statements.
 */
export const SEND_STATE = preparedStatement(
  'channels.send-state',
  'select d.external_id, exists (select 1 from channel_deliveries e where e.tenant_uuid = d.tenant_uuid and e.channel_uuid = d.channel_uuid and e.recipient = d.recipient and e.seq < d.seq and e.settled_at is null ' +
    "and e.created_at > now() - $3::float8 * interval '1 millisecond') as behind from channel_deliveries d where d.tenant_uuid = $1 and d.uuid = $2",
);

/** Records the provider's id and settles the delivery in one statement; its place in the thread comes back for the wake-up. */
const SETTLE_SENT = preparedStatement(
  'channels.settle-sent',
  'update channel_deliveries set external_id = $3, settled_at = coalesce(settled_at, now()), updated_at = now() where tenant_uuid = $1 and uuid = $2 returning channel_uuid, recipient, seq',
);

/** Settles a delivery that failed for good (or was found sent); `updated_at` is left alone: watermark receipts read it as when a message was sent. */
const SETTLE = preparedStatement(
  'channels.settle',
  'update channel_deliveries set settled_at = now() where tenant_uuid = $1 and uuid = $2 and settled_at is null returning channel_uuid, recipient, seq',
);

/**
 * Takes the parked payload of the thread's next unsettled delivery, if it is parked, and
 * clears it (one wake-up per park). The row is locked as it is read, so a concurrent
 * wake-up of it is waited for and its cleared payload read afresh; RETURNING alone would
 * give the new value, null, hence the payload comes from the locking read.
 */
const WAKE_NEXT = preparedStatement(
  'channels.wake-next',
  'with next as (select uuid, held_payload from channel_deliveries where tenant_uuid = $1 and channel_uuid = $2 and recipient = $3 and seq > $4 and settled_at is null order by seq limit 1 for update) ' +
    'update channel_deliveries d set held_payload = null from next where d.tenant_uuid = $1 and d.uuid = next.uuid and next.held_payload is not null returning next.held_payload',
);

/** The nearest earlier unsettled delivery of the thread, row-locked; none when all before it settled (a concurrent settle is waited for and re-checked). */
const LOCK_EARLIER = preparedStatement(
  'channels.lock-earlier',
  'select e.seq from channel_deliveries d join channel_deliveries e on e.tenant_uuid = d.tenant_uuid and e.channel_uuid = d.channel_uuid and e.recipient = d.recipient and e.seq < d.seq and e.settled_at is null ' +
    "and e.created_at > now() - $3::float8 * interval '1 millisecond' where d.tenant_uuid = $1 and d.uuid = $2 order by e.seq desc limit 1 for update of e",
);

/** Lets a parked send go, unless a wake-up already took it (the one that clears the payload moves it on). */
const UNPARK = preparedStatement(
  'channels.unpark',
  'update channel_deliveries d set held_payload = null from (select uuid, held_payload from channel_deliveries where tenant_uuid = $1 and uuid = $2 and held_payload is not null for update) parked ' +
    'where d.tenant_uuid = $1 and d.uuid = parked.uuid returning parked.held_payload',
);

const HOLD = preparedStatement('channels.hold', 'update channel_deliveries set held_payload = $3::jsonb where tenant_uuid = $1 and uuid = $2');

interface ThreadPlace {
  channel_uuid: string;
  recipient: string | null;
  seq: string;
}

/**
 * In `prepare`, before sending: sent already, behind an earlier unsettled delivery of its
 * thread, or free to go. An earlier delivery queued more than `waitLimitMs` ago holds
 * nothing up: retries end long before (sendAttempts, an hour's backoff at most each), so
 * one still unsettled then has a send that will not settle it (dead-lettered, say), and
 * the customer's thread must not stop behind it for ever.
 */
export async function sendState(em: EntityManager, tenant: TenantRef, messageUuid: string, waitLimitMs: number): Promise<'sent' | 'behind' | 'free'> {
  const [row] = await boundQuery<{ external_id: string | null; behind: boolean }>(em, SEND_STATE, [tenant.uuid, messageUuid, waitLimitMs]);
  if (row?.external_id) return 'sent';
  return row?.behind ? 'behind' : 'free';
}

/**
 * In the handler of a send found `behind`: parks the payload in its delivery while the
 * nearest earlier one is still unsettled, else (it settled since) publishes it again at
 * once. Locking that earlier row is what makes the park safe: its settle (SETTLE_SENT or
 * SETTLE, an UPDATE of the same row) waits for this transaction to commit, and only then,
 * in its next statement (WAKE_NEXT, a snapshot taken after the lock was granted), looks
 * for a parked successor, so it sees this park. Had the settle come first, the lock waits
 * for it instead and the re-checked row no longer matches: the send is published again
 * here. Either way exactly one side moves the send on; none leaves it parked for ever.
 * The nearest earlier row is enough to lock: it cannot settle before the park commits, and
 * when it does, it wakes the first unsettled delivery after it, which is this one or one
 * whose own settle wakes this one in turn.
 */
export async function holdBehindEarlier(em: EntityManager, bus: BusService, tenant: TenantRef, payload: SendPayload, waitLimitMs: number): Promise<void> {
  const [earlier] = await boundQuery(em, LOCK_EARLIER, [tenant.uuid, payload.message_uuid, waitLimitMs]);
  if (!earlier) return void (await bus.publish(CHANNEL_TOPICS.send, payload));
  await boundQuery(em, HOLD, [tenant.uuid, payload.message_uuid, JSON.stringify(payload)]);
  // Should nothing wake it, it goes once the earlier one no longer holds it up (sendState).
  await bus.publish(CHANNEL_TOPICS.sendUnpark, { message_uuid: payload.message_uuid } satisfies SendUnparkPayload, { delay: waitLimitMs + 1000 });
}

/** The delayed check of a parked send (`channels.send-unpark`): still parked, it is published again and goes. */
export async function unpark(em: EntityManager, bus: BusService, tenant: TenantRef, messageUuid: string): Promise<void> {
  const [parked] = await boundQuery<{ held_payload: SendPayload }>(em, UNPARK, [tenant.uuid, messageUuid]);
  if (parked) await bus.publish(CHANNEL_TOPICS.send, parked.held_payload);
}

/**
 * Settles a delivery, sent as `externalId` or (null) failed for good or found sent, and
 * wakes the thread's next one if it is parked. The wake-up must stay a statement of its
 * own after the settling UPDATE: one statement reads with the snapshot it began with, and
 * would miss a park committed while the UPDATE waited for that parking transaction's lock.
 */
export async function settleAndWakeNext(em: EntityManager, bus: BusService, tenant: TenantRef, messageUuid: string, externalId: string | null): Promise<void> {
  const [place] = externalId === null ? await boundQuery<ThreadPlace>(em, SETTLE, [tenant.uuid, messageUuid]) : await boundQuery<ThreadPlace>(em, SETTLE_SENT, [tenant.uuid, messageUuid, externalId]);
  if (!place?.recipient) return;
  const [next] = await boundQuery<{ held_payload: SendPayload }>(em, WAKE_NEXT, [tenant.uuid, place.channel_uuid, place.recipient, place.seq]);
  if (next) await bus.publish(CHANNEL_TOPICS.send, next.held_payload);
}
