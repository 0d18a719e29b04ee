/**
 * The floor of bench/runtime's tool turn: what this design must do for a turn, from bare
 * `pg` and undici in the parent, with no kernel. It is the baseline's three calls (model,
 * webhook, model) plus the statements a turn cannot do without:
 *
 *   the agent read                 one statement (the row and its intents)
 *   the first transaction          begin; the turn lease; the conversation locked; the
 *                                  customer's message; the session counted; its
 *                                  message_created in the outbox; the history; commit
 *   the last transaction           begin; the conversation locked; the tool and agent
 *                                  messages; the session counted; their events and
 *                                  intent_called in the outbox; the lease given back; commit
 *   the usage                      one INSERT of both model calls' rows
 *
 * The outbox rows go to a copy of `bus_outbox`, so the kernel's consumers (idle while the
 * floor runs) do not take them. The pool has the kernel's size. The floor shows how far
 * the design's own statements let own time go at this concurrency on this machine; the
 * platform is judged against it as well as against the goal. The statements before and
 * after the model (floorOpen, floorClose) also serve the streamed turn's floor server
 * (runtime-sse-floor.ts).
 */
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import { inPgTransaction } from '../../core/data/pg-transaction';
import { baselineTurn, wallClock, type BaselineTemplates, type ConversationState, type TurnSample } from './runtime-clients';

export const FLOOR_OUTBOX = 'bench_floor_outbox';

export interface FloorTarget {
  pool: Pool;
  tenantUuid: string;
  agentUuid: string;
  historyMessages: number;
}

/** The floor's outbox: a copy of the bus's, made once per bench database. */
export async function prepareFloor(pool: Pool): Promise<void> {
  await pool.query(`create table if not exists ${FLOOR_OUTBOX} (like bus_outbox including defaults)`);
}

/** Each conversation's open session, by conversation uuid (the floor opens one with its conversation). */
const sessions = new Map<string, string>();

const OUTBOX_INSERT =
  `insert into ${FLOOR_OUTBOX} (id, message_id, topic, payload, headers, tenant_uuid, attempt, due_at, created_at) ` +
  `select gen_random_uuid(), gen_random_uuid(), $1, entry, '{}'::jsonb, $2, 1, clock_timestamp(), clock_timestamp() from jsonb_array_elements($3::jsonb) as entry`;

const MESSAGE_INSERT =
  `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, agent_uuid, channel, sender, message_type, content) ` +
  `select gen_random_uuid(), $1, now(), now(), $2, $3, $4, 'chat', m->>'sender', m->>'type', m->>'content' from jsonb_array_elements($5::jsonb) as m returning uuid`;

/** A turn between its first and its last transaction. */
export interface FloorTurnState {
  conversationUuid: string;
  holder: string;
}

/**
 * The statements before the model: the agent read and the first transaction (a new
 * conversation and its session when `conversationUuid` is null; the lease; the lock; the
 * customer's message; the session counted; its event; the history).
 */
export async function floorOpen(target: FloorTarget, conversationUuid: string | null, turnId: string): Promise<FloorTurnState> {
  const { pool, tenantUuid, agentUuid } = target;
  await pool.query(
    `select a.*, (select coalesce(json_agg(i), '[]') from agent_intents i where i.agent_uuid = a.uuid) as intents from agents a where a.uuid = $1 and a.tenant_uuid = $2`,
    [agentUuid, tenantUuid],
  );
  const isNew = conversationUuid === null;
  const state: FloorTurnState = { conversationUuid: conversationUuid ?? crypto.randomUUID(), holder: crypto.randomUUID() };
  await inPgTransaction(pool, async (client) => {
    if (isNew) {
      const sessionUuid = crypto.randomUUID();
      sessions.set(state.conversationUuid, sessionUuid);
      await client.query(
        `insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, channel, status, started_at) values ($1, $2, now(), now(), $3, 'chat', 'open', now())`,
        [state.conversationUuid, tenantUuid, agentUuid],
      );
      await client.query(
        `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, channel, status, started_at) values ($1, $2, now(), now(), $3, $4, 'chat', 'open', now())`,
        [sessionUuid, tenantUuid, state.conversationUuid, agentUuid],
      );
    }
    const taken = await client.query(
      `insert into runtime_turn_leases (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, holder, expires_at) values (gen_random_uuid(), $1, now(), now(), $2, $3, now() + interval '3 minutes') ` +
        `on conflict (conversation_uuid) do update set holder = excluded.holder, expires_at = excluded.expires_at where runtime_turn_leases.expires_at < now() returning holder`,
      [tenantUuid, state.conversationUuid, state.holder],
    );
    if (taken.rowCount === 0) throw new Error('the floor found its own lease taken');
    await client.query(`select uuid from conversations where uuid = $1 for update`, [state.conversationUuid]);
    const sessionUuid = sessions.get(state.conversationUuid)!;
    const [message] = (await client.query(MESSAGE_INSERT, [tenantUuid, state.conversationUuid, sessionUuid, agentUuid, JSON.stringify([{ sender: 'customer', type: 'text', content: turnId }])])).rows;
    await client.query(`update conversation_sessions set message_count = message_count + 1, last_customer_message_at = now(), updated_at = now() where uuid = $1`, [sessionUuid]);
    await client.query(OUTBOX_INSERT, ['conversation.message_created', tenantUuid, JSON.stringify([{ message_uuid: message.uuid }])]);
    await client.query(`select sender, message_type, content from conversation_messages where conversation_uuid = $1 order by created_at desc, uuid desc limit $2`, [
      state.conversationUuid,
      target.historyMessages,
    ]);
  });
  return state;
}

/**
 * The statements after the model: the last transaction (the lock; the turn's messages; the
 * session counted; their events and any other `events` in the outbox; the lease given
 * back) and the usage rows of its `modelCalls`.
 */
export async function floorClose(
  target: FloorTarget,
  state: FloorTurnState,
  messages: Array<{ sender: string; type: string; content: string }>,
  events: Array<{ topic: string; payload: unknown }>,
  modelCalls: number,
): Promise<void> {
  const { pool, tenantUuid, agentUuid } = target;
  await inPgTransaction(pool, async (client) => {
    await client.query(`select uuid from conversations where uuid = $1 for update`, [state.conversationUuid]);
    const sessionUuid = sessions.get(state.conversationUuid)!;
    const recorded = (await client.query(MESSAGE_INSERT, [tenantUuid, state.conversationUuid, sessionUuid, agentUuid, JSON.stringify(messages)])).rows;
    await client.query(`update conversation_sessions set message_count = message_count + $2, updated_at = now() where uuid = $1`, [sessionUuid, messages.length]);
    await client.query(OUTBOX_INSERT, ['conversation.message_created', tenantUuid, JSON.stringify(recorded.map((row) => ({ message_uuid: row.uuid })))]);
    for (const event of events) await client.query(OUTBOX_INSERT, [event.topic, tenantUuid, JSON.stringify([event.payload])]);
    await client.query(`delete from runtime_turn_leases where conversation_uuid = $1 and holder = $2`, [state.conversationUuid, state.holder]);
  });
  await pool.query(
    `insert into llm_usage (uuid, tenant_uuid, provider, model, agent_uuid, purpose, prompt_tokens, completion_tokens, total_tokens, duration_ms, status, created_at) ` +
      `select gen_random_uuid(), $1, 'openai-compatible', 'bench', $2, 'runtime.turn', 10, 5, 15, 1, 'ok', now() from generate_series(1, $3::int)`,
    [tenantUuid, agentUuid, modelCalls],
  );
}

/** One floor turn: the baseline's calls, with the design's statements around them. */
export async function floorTurn(target: FloorTarget, t: BaselineTemplates, conversation: ConversationState, turnId: string): Promise<TurnSample> {
  const started = performance.now();
  const startedAt = wallClock();
  try {
    const state = await floorOpen(target, conversation.uuid, turnId);
    conversation.uuid = state.conversationUuid;
    // The calls, exactly as the baseline makes them.
    const calls = await baselineTurn(t, false, conversation, turnId);
    if (!calls.ok) throw new Error(calls.error);
    await floorClose(
      target,
      state,
      [
        { sender: 'agent', type: 'tool', content: '{"name":"check_order"}' },
        { sender: 'agent', type: 'text', content: 'Your order is on its way.' },
      ],
      [{ topic: 'agent.intent_called', payload: { conversation_uuid: state.conversationUuid } }],
      2,
    );
    return { turnId, startedAt, latency: performance.now() - started, firstDeltaAt: null, ok: true };
  } catch (error) {
    return { turnId, startedAt, latency: performance.now() - started, firstDeltaAt: null, ok: false, error: String((error as Error).message ?? error) };
  }
}
