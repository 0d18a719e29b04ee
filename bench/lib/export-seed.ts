import type { Client } from 'pg';

/**
 * Messages for the export benchmark, written by SQL in a few statements: `rows`
 * messages of one tenant, 100 per conversation, one session per conversation, the
 * six channels in turn, two messages per millisecond from 2024-01-01 (so equal
 * instants are common and the uuid breaks the tie), content of 60-90 characters.
 * Ends with VACUUM ANALYZE, so no reader pays for hint bits or plans on stale statistics.
 */
export const MESSAGES_PER_CONVERSATION = 100;
const CHUNK = 200_000;

/**
 * Deterministic ids from a conversation's number (md5 of a label, read as a uuid), so
 * that messages name their conversation and session without a join while seeding.
 */
const idOf = (label: string, number: string) => `md5('${label}' || ${number})::uuid`;
const CHANNELS = `(array['voice','sms','chatapp','chatapp_call','social','chat'])[1 + (c % 6)]`;

export async function seedMessages(db: Client, tenantUuid: string, rows: number, progress: (done: number) => void = () => {}): Promise<void> {
  const conversations = Math.ceil(rows / MESSAGES_PER_CONVERSATION);
  await db.query(
    `insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, channel, channel_label, status, started_at, ended_at)
     select ${idOf('conversation', 'c')}, $1, now(), now(), ${idOf('agent', '(c % 20)')}, ${idOf('contact', 'c')}, ${CHANNELS}, 'Line ' || (c % 6), 'closed', now(), now()
     from generate_series(0, $2 - 1) as c`,
    [tenantUuid, conversations],
  );
  await db.query(
    `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, contact_uuid, channel, status, started_at, ended_at, message_count, close_reason)
     select ${idOf('session', 'c')}, $1, now(), now(), ${idOf('conversation', 'c')}, ${idOf('agent', '(c % 20)')}, ${idOf('contact', 'c')}, ${CHANNELS}, 'closed', now(), now(), $3, 'timeout'
     from generate_series(0, $2 - 1) as c`,
    [tenantUuid, conversations, MESSAGES_PER_CONVERSATION],
  );
  // Message i belongs to conversation c = i / 100.
  for (let start = 0; start < rows; start += CHUNK) {
    const end = Math.min(rows, start + CHUNK);
    await db.query(
      `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content)
       select gen_random_uuid(), $1, timestamptz '2024-01-01 00:00:00Z' + (i / 2) * interval '1 millisecond', now(),
              ${idOf('conversation', 'c')}, ${idOf('session', 'c')}, ${idOf('contact', 'c')}, ${idOf('agent', '(c % 20)')}, ${CHANNELS}, 'Line ' || (c % 6),
              (array['customer','agent'])[1 + (i % 2)], 'text',
              'Message ' || i || ' of the conversation, about order ' || left(md5(i::text), 8 + (i % 30))
       from (select i, i / ${MESSAGES_PER_CONVERSATION} as c from generate_series($2::int, $3::int - 1) as i) as numbered`,
      [tenantUuid, start, end],
    );
    progress(end);
  }
  await db.query('vacuum analyze conversations, conversation_sessions, conversation_messages');
}
