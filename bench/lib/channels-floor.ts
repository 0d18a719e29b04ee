/**
 * The floor of bench/channels' SMS turn: what this design must do for one inbound SMS
 * answered by the agent, from bare `pg` and undici in the parent, with no kernel. Its
 * calls are the kernel's: the scripted model, then the reply posted to the Twilio-like
 * provider as form fields after the agent's pacing wait. Around them, the statements
 * the path cannot do without (31):
 *
 *   the hook            the channel found across tenants; begin; the message id kept
 *                       against provider retries; `channels.inbound` in the outbox; commit
 *   the turn            the thread's conversation; the agent (the plugin's own prepared
 *                       read); begin; the lease; the conversation locked; the message
 *                       into the open session with its count (one statement, as the kernel
 *                       does); the session's timer and `message_created` in the outbox;
 *                       the history; commit
 *   the reply           begin; the conversation locked; the reply into the session,
 *                       `pending`; `message_created`; the lease given back; the inbound
 *                       message's inbox row; the thread kept; the delivery; the paced
 *                       `channels.send` in the outbox; commit
 *   the send            its delivery read (sent already? behind another?); after the POST,
 *                       begin; its inbox row; the delivery settled; the message `sent`; commit
 *
 * Left out, so the floor is lower than the design's real cost: the relay's claims (one
 * statement serves every message due together), the wake-up after a settle, the usage
 * row and NOTIFYs, and all HTTP on the way in (the hook's request). The outbox rows go to
 * the runtime floor's copy of `bus_outbox` (bench/lib/runtime-floor.ts), which no relay reads.
 */
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import { request, type Agent } from 'undici';
import { inPgTransaction } from '../../core/data/pg-transaction';
import { SELECT_AGENTS } from '../../plugins/agents/agent-reader';
import { channelsConfig } from '../../plugins/channels/channels-config';
import { SEND_STATE } from '../../plugins/channels/outbound/send-order';
import { customerText, type Arrivals, type TurnSample } from './channels-clients';
import { FLOOR_OUTBOX } from './runtime-floor';
import { wallClock } from './runtime-clients';
import { replyText } from './turn-ids';

export interface ChannelsFloorTarget {
  pool: Pool;
  tenantUuid: string;
  agentUuid: string;
  channelUuid: string;
  llmUrl: string;
  providerUrl: string;
  accountSid: string;
  authToken: string;
  ourNumber: string;
  /** The agent's pacing wait before a turn's reply, as the kernel's send is due. */
  pacingWaitMs: (turnId: string) => number;
  historyMessages: number;
  dispatcher: Agent;
  arrivals: Arrivals;
  timeoutMs: number;
}

/** A customer's thread in the floor: its conversation and open session, made at its first turn. */
export interface FloorThread {
  conversationUuid: string | null;
  sessionUuid: string | null;
}

/** The kernel's default, which the bench's kernel keeps. */
const SEND_WAIT_LIMIT_MS = channelsConfig.sendWaitLimitMs.default;

const OUTBOX_INSERT =
  `insert into ${FLOOR_OUTBOX} (id, message_id, topic, payload, headers, tenant_uuid, attempt, due_at, created_at) ` +
  `values (gen_random_uuid(), gen_random_uuid(), $1, $2::jsonb, '{}'::jsonb, $3, 1, clock_timestamp() + ($4::float8 * interval '1 millisecond'), clock_timestamp())`;
const TIMER_REPLACE =
  `with replaced as (delete from ${FLOOR_OUTBOX} where topic = 'conversations.session-timeout' and dedupe_key = $1 and locked_until is null) ` +
  `insert into ${FLOOR_OUTBOX} (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, attempt, due_at, created_at) ` +
  `values (gen_random_uuid(), gen_random_uuid(), 'conversations.session-timeout', '{}'::jsonb, '{}'::jsonb, $2, $1, 1, clock_timestamp() + interval '30 minutes', clock_timestamp())`;
const RECORD =
  `with session as (update conversation_sessions set message_count = message_count + 1, updated_at = now() where tenant_uuid = $1 and conversation_uuid = $2 and status = 'open' returning uuid) ` +
  `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, agent_uuid, channel, sender, message_type, content, delivery_status) ` +
  `select gen_random_uuid(), $1, clock_timestamp(), clock_timestamp(), $2, session.uuid, $3, 'sms', $4, 'text', $5, $6 from session returning uuid`;

/** The system prompt's size stands in for the kernel's (the model answers at once either way). */
const SYSTEM_PROMPT = 'You are Orders, customer service of an online shop. '.repeat(20);

const post = (t: ChannelsFloorTarget, url: string, headers: Record<string, string>, body: string) => request(url, { method: 'POST', dispatcher: t.dispatcher, headers, body });

/** One floor turn of a customer (`from`), ended like the kernel's: when the reply reaches the provider. */
export async function floorSmsTurn(t: ChannelsFloorTarget, thread: FloorThread, from: string, turnId: string): Promise<TurnSample> {
  const waiting = t.arrivals.expect(turnId, t.timeoutMs);
  const started = performance.now();
  const startedAt = wallClock();
  let ackLatency: number | null = null;
  const { pool, tenantUuid, agentUuid, channelUuid } = t;
  try {
    const text = customerText(turnId);
    // The hook.
    await pool.query(
      `select c.uuid, c.agent_uuid, c.config, a.status, t.uuid as tenant_uuid from agent_channels c join agents a on a.uuid = c.agent_uuid join tenants t on t.uuid = c.tenant_uuid where c.uuid = $1`,
      [channelUuid],
    );
    await inPgTransaction(pool, async (client) => {
      await client.query(`insert into channel_inbound_messages (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id) values (gen_random_uuid(), $1, now(), now(), $2, $3)`, [
        tenantUuid,
        channelUuid,
        `SM${crypto.randomBytes(16).toString('hex')}`,
      ]);
      await client.query(OUTBOX_INSERT, ['channels.inbound', JSON.stringify({ from, text }), tenantUuid, 0]);
    });
    ackLatency = performance.now() - started;

    // The turn.
    await pool.query(`select conversation_uuid from channel_threads where tenant_uuid = $1 and channel_uuid = $2 and address = $3`, [tenantUuid, channelUuid, from]);
    if (thread.conversationUuid === null) {
      // A new customer: its conversation, session and thread, as the first message makes them.
      const conversationUuid = crypto.randomUUID();
      const sessionUuid = crypto.randomUUID();
      await inPgTransaction(pool, async (client) => {
        await client.query(`insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, channel, status, started_at) values ($1, $2, now(), now(), $3, 'sms', 'open', now())`, [
          conversationUuid,
          tenantUuid,
          agentUuid,
        ]);
        await client.query(
          `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, channel, status, started_at) values ($1, $2, now(), now(), $3, $4, 'sms', 'open', now())`,
          [sessionUuid, tenantUuid, conversationUuid, agentUuid],
        );
      });
      thread.conversationUuid = conversationUuid;
      thread.sessionUuid = sessionUuid;
    }
    const conversationUuid = thread.conversationUuid;
    await pool.query({ name: SELECT_AGENTS.name, text: SELECT_AGENTS.text, values: [tenantUuid, [agentUuid]] });
    const holder = crypto.randomUUID();
    const history = await inPgTransaction(pool, async (client) => {
      const taken = await client.query(
        `insert into runtime_turn_leases (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, holder, expires_at) values (gen_random_uuid(), $1, now(), now(), $2, $3, now() + interval '3 minutes') ` +
          `on conflict (conversation_uuid) do update set holder = excluded.holder, expires_at = excluded.expires_at where runtime_turn_leases.expires_at < now() returning holder`,
        [tenantUuid, conversationUuid, holder],
      );
      if (taken.rowCount === 0) throw new Error('the floor found its own lease taken');
      await client.query(`select uuid from conversations where tenant_uuid = $1 and uuid = $2 for update`, [tenantUuid, conversationUuid]);
      await client.query(RECORD, [tenantUuid, conversationUuid, agentUuid, 'customer', text, null]);
      await client.query(TIMER_REPLACE, [`session:${thread.sessionUuid}`, tenantUuid]);
      await client.query(OUTBOX_INSERT, ['conversation.message_created', JSON.stringify({ conversation_uuid: conversationUuid }), tenantUuid, 0]);
      return (
        await client.query(`select sender, message_type, content from conversation_messages where tenant_uuid = $1 and conversation_uuid = $2 order by created_at desc, uuid desc limit $3`, [
          tenantUuid,
          conversationUuid,
          t.historyMessages,
        ])
      ).rows.reverse();
    });
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      ...history.map((row: { sender: string; content: string }) => ({ role: row.sender === 'customer' ? 'user' : 'assistant', content: row.content })),
    ];
    const model = await post(t, `${t.llmUrl}/chat/completions`, { 'content-type': 'application/json' }, JSON.stringify({ model: 'bench', messages }));
    const answer = (await model.body.json()) as { choices?: Array<{ message?: { content?: string } }> };
    const reply = answer.choices?.[0]?.message?.content;
    if (model.statusCode !== 200 || typeof reply !== 'string') throw new Error(`the model answered ${model.statusCode}`);

    // The reply, queued for its paced send.
    const messageUuid = await inPgTransaction(pool, async (client) => {
      await client.query(`select uuid from conversations where tenant_uuid = $1 and uuid = $2 for update`, [tenantUuid, conversationUuid]);
      const [recorded] = (await client.query(RECORD, [tenantUuid, conversationUuid, agentUuid, 'agent', reply, 'pending'])).rows;
      await client.query(OUTBOX_INSERT, ['conversation.message_created', JSON.stringify({ message_uuid: recorded.uuid }), tenantUuid, 0]);
      await client.query(`delete from runtime_turn_leases where conversation_uuid = $1 and holder = $2`, [conversationUuid, holder]);
      await client.query(`insert into bus_inbox (consumer, message_id, handled_at) values ('channels.inbound', gen_random_uuid(), clock_timestamp())`);
      await client.query(
        `insert into channel_threads (uuid, tenant_uuid, created_at, updated_at, channel_uuid, address, conversation_uuid) values (gen_random_uuid(), $1, now(), now(), $2, $3, $4) ` +
          `on conflict (channel_uuid, address) do update set conversation_uuid = excluded.conversation_uuid, updated_at = now()`,
        [tenantUuid, channelUuid, from, conversationUuid],
      );
      await client.query(`insert into channel_deliveries (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id, recipient) values ($1, $2, now(), now(), $3, null, $4)`, [
        recorded.uuid,
        tenantUuid,
        channelUuid,
        from,
      ]);
      await client.query(OUTBOX_INSERT, ['channels.send', JSON.stringify({ message_uuid: recorded.uuid, to: from }), tenantUuid, t.pacingWaitMs(turnId)]);
      return recorded.uuid as string;
    });

    // The send, when the pacing says.
    await new Promise((resolve) => setTimeout(resolve, t.pacingWaitMs(turnId)));
    await pool.query({ name: SEND_STATE.name, text: SEND_STATE.text, values: [tenantUuid, messageUuid, SEND_WAIT_LIMIT_MS] });
    const form = new URLSearchParams({ To: from, From: t.ourNumber, Body: replyText(turnId) }).toString();
    const basic = `Basic ${Buffer.from(`${t.accountSid}:${t.authToken}`).toString('base64')}`;
    const sent = await post(t, `${t.providerUrl}/2010-04-01/Accounts/${t.accountSid}/Messages.json`, { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, form);
    const resource = (await sent.body.json()) as { sid?: string };
    if (sent.statusCode !== 201 || !resource.sid) throw new Error(`the provider answered ${sent.statusCode}`);
    await inPgTransaction(pool, async (client) => {
      await client.query(`insert into bus_inbox (consumer, message_id, handled_at) values ('channels.send', gen_random_uuid(), clock_timestamp())`);
      await client.query(`update channel_deliveries set external_id = $3, settled_at = now(), updated_at = now() where tenant_uuid = $1 and uuid = $2`, [tenantUuid, messageUuid, resource.sid]);
      await client.query(`update conversation_messages set delivery_status = 'sent', updated_at = now() where tenant_uuid = $1 and uuid = $2`, [tenantUuid, messageUuid]);
    });
    await waiting.arrived;
    return { turnId, startedAt, latency: performance.now() - started, ackLatency, ok: true };
  } catch (error) {
    waiting.cancel();
    return { turnId, startedAt, latency: performance.now() - started, ackLatency, ok: false, error: String((error as Error).message ?? error) };
  }
}
