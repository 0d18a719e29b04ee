import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, type TenantRef } from '../../../core';

/*
 * A channel thread: the conversation a customer address is having on a channel
 * (`channel_threads`, unique on channel and address). Who may open a new conversation
 * for an address is decided by that unique key, never by an earlier read.
 */

export async function threadOf(em: EntityManager, tenant: TenantRef, channelUuid: string, address: string): Promise<string | null> {
  const [row] = await boundQuery<{ conversation_uuid: string }>(
    em,
    'select conversation_uuid from channel_threads where tenant_uuid = $1 and channel_uuid = $2 and address = $3',
    [tenant.uuid, channelUuid, address],
  );
  return row?.conversation_uuid ?? null;
}

/** Points the thread at the conversation a turn or message went to, whatever it held. */
export async function keepThread(em: EntityManager, tenant: TenantRef, channelUuid: string, address: string, conversationUuid: string): Promise<void> {
  await boundQuery(
    em,
    'insert into channel_threads (uuid, tenant_uuid, created_at, updated_at, channel_uuid, address, conversation_uuid) values (gen_random_uuid(), $1, now(), now(), $2, $3, $4) ' +
      'on conflict (channel_uuid, address) do update set conversation_uuid = excluded.conversation_uuid, updated_at = now()',
    [tenant.uuid, channelUuid, address, conversationUuid],
  );
}

/**
 * Makes `conversationUuid` the thread's only if the thread still holds `previous` (the
 * closed or deleted conversation seen before; null: no thread yet). Of two claims at once
 * the unique key lets one insert or update, and the other waits for it to commit and
 * then changes nothing: true for the claim that won.
 */
export async function claimThread(em: EntityManager, tenant: TenantRef, channelUuid: string, address: string, previous: string | null, conversationUuid: string): Promise<boolean> {
  const rows = await boundQuery<{ uuid: string }>(
    em,
    'insert into channel_threads (uuid, tenant_uuid, created_at, updated_at, channel_uuid, address, conversation_uuid) values (gen_random_uuid(), $1, now(), now(), $2, $3, $4) ' +
      'on conflict (channel_uuid, address) do update set conversation_uuid = excluded.conversation_uuid, updated_at = now() ' +
      'where channel_threads.conversation_uuid = $5::uuid returning uuid',
    [tenant.uuid, channelUuid, address, conversationUuid, previous],
  );
  return rows.length > 0;
}
