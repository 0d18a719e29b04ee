import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, type TenantRef } from '../../../core';
import type { ConversationWriter } from '../../conversations';
import type { ReceiptPayload } from '../topics';
import { threadOf } from '../turns/threads';

/** The latest messages of the thread a watermark is checked against: what a customer reads at once. */
export const WATERMARK_MESSAGES = 100;
/**
 * We stamp a message sent when the provider's answer is back, a moment after the provider
 * stamped it; a watermark at the provider's stamp still covers it within this margin.
 */
export const WATERMARK_SLACK_MS = 2000;

/**
 * A watermark receipt (Messenger's `read` or `delivery` watermark): every agent message of
 * the customer's thread on the channel that was sent (the provider's id recorded) by the
 * watermark, and is not yet at that status, moves to it. Messages still waiting to be
 * sent, and failed ones, are left alone. Returns how many changed.
 */
export async function applyWatermark(em: EntityManager, conversations: ConversationWriter, tenant: TenantRef, payload: ReceiptPayload): Promise<number> {
  if (!payload.to || !payload.watermark) return 0;
  const conversationUuid = await threadOf(em, tenant, payload.channel_uuid, payload.to);
  if (!conversationUuid) return 0;
  const below = payload.status === 'read' ? ['sent', 'delivered'] : ['sent'];
  const candidates = (await conversations.history(em, conversationUuid, WATERMARK_MESSAGES))
    .filter((message) => message.sender === 'agent' && message.delivery_status !== null && below.includes(message.delivery_status))
    .map((message) => message.message_uuid);
  if (candidates.length === 0) return 0;
  const sentBy = new Date(new Date(payload.watermark).getTime() + WATERMARK_SLACK_MS);
  const rows = await boundQuery<{ uuid: string }>(
    em,
    'select uuid from channel_deliveries where tenant_uuid = $1 and channel_uuid = $2 and uuid = any($3::uuid[]) and external_id is not null and updated_at <= $4',
    [tenant.uuid, payload.channel_uuid, `{${candidates.join(',')}}`, sentBy],
  );
  let changed = 0;
  for (const row of rows) if (await conversations.setDelivery(em, row.uuid, payload.status)) changed += 1;
  return changed;
}
