import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, type TenantRef } from '../../../core';
import type { InboundPayload } from '../topics';

/*
 * A thread's messages are answered in the order they arrived. A voice note takes the audio
 * step (fetched, transcribed) before its turn, so a text the customer sent just after it
 * would otherwise be answered first. The hook marks a voice note's row with its sender
 * (`awaiting_from`) as it sends it to the audio step; a later message of that sender on
 * the channel waits (it is put back on the bus a moment later) until the note's turn is
 * taken and the mark cleared with it. A mark older than ORDER_WAIT_MS holds nobody: a note
 * whose step died (a crash, a dead letter) does not silence its thread.
 */

/** The longest a message waits for an earlier voice note of its sender: beyond the audio step's tries at their defaults. */
export const ORDER_WAIT_MS = 10 * 60_000;
/** How soon a waiting message looks again. */
export const ORDER_RECHECK_MS = 300;

/** Whether an earlier voice note of the message's sender on the channel is still before its turn. */
export async function waitsForEarlierVoiceNote(em: EntityManager, tenant: TenantRef, payload: InboundPayload): Promise<boolean> {
  const rows = await boundQuery(
    em,
    'select 1 from channel_inbound_messages w where w.tenant_uuid = $1 and w.channel_uuid = $2 and w.awaiting_from = $3 and w.external_id <> $4 ' +
      "and w.created_at > now() - $5::int * interval '1 millisecond' " +
      'and w.created_at < coalesce((select m.created_at from channel_inbound_messages m where m.channel_uuid = $2 and m.external_id = $4), now()) limit 1',
    [tenant.uuid, payload.channel_uuid, payload.from, payload.external_id, ORDER_WAIT_MS],
  );
  return rows.length > 0;
}

/** The voice note's turn is taken (or the message otherwise handled): later messages of its sender go on. Only a message that went through the audio step can hold a mark. */
export async function releaseVoiceNote(em: EntityManager, payload: InboundPayload): Promise<void> {
  if (payload.transcript === undefined) return;
  await boundQuery(em, 'update channel_inbound_messages set awaiting_from = null, updated_at = now() where channel_uuid = $1 and external_id = $2 and awaiting_from is not null', [
    payload.channel_uuid,
    payload.external_id,
  ]);
}
