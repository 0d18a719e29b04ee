/**
 * The load generators of bench/runtime.ts, both run in the parent: `concurrency`
 * conversations, each a loop of turns until the deadline. The platform client sends
 * each turn to `/chat` (JSON, or SSE for the streamed scenario); the baseline client
 * does the same turn's work itself with bare undici: model -> webhook -> model, with the
 * request bodies the kernel sent (captured once from the fake model), or for the
 * streamed scenario one streamed model call.
 */
import { Agent, request } from 'undici';
import { clockCorrection } from './runtime-clock';
import { userMessage } from './runtime-scripted';

/** This process's stamps on the system clock, comparable with the scripted child's (runtime-clock.ts). */
const correction = clockCorrection();
export const wallClock = () => performance.timeOrigin + performance.now() + correction;

export interface TurnSample {
  turnId: string;
  /** When the client sent the turn, on the system clock (runtime-clock.ts). */
  startedAt: number;
  /** Client-observed turn latency (ms). */
  latency: number;
  /** When the first `delta` (platform) or content chunk (baseline) arrived: wall-clock ms. */
  firstDeltaAt: number | null;
  ok: boolean;
  error?: string;
}

export interface LoadOptions {
  scenario: 'tool' | 'sse';
  side: 'kernel' | 'baseline' | 'floor';
  round: number;
  concurrency: number;
  seconds: number;
  /**
   * The customer's think time between a conversation's turns, in ms (0: the next turn as
   * soon as the last is answered). Each pause is drawn from 0.5x-1.5x of it, and each
   * conversation starts after 0-1x of it, so the conversations do not move in step.
   */
  thinkMs: number;
  dispatcher: Agent;
}

/** Turns before a loop starts a new conversation (below the default daily limit of 100). */
export const TURNS_PER_CONVERSATION = 40;
/** Paced, a customer's conversation lasts this many turns (a chat's few exchanges). */
export const PACED_TURNS_PER_CONVERSATION = 10;

/**
 * A number in [0, 1) fixed by the conversation and turn: every side of a run pauses the
 * same, so sides compare at the same offered load.
 */
function fraction(conversation: number, turn: number): number {
  let h = Math.imul(conversation + 1, 0x9e3779b1) ^ Math.imul(turn + 2, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 13;
  return (h >>> 0) / 2 ** 32;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `concurrency` conversation loops for `seconds`; each turn's id is unique in the run.
 *
 * Back to back, every loop starts a conversation at once and keeps it for
 * TURNS_PER_CONVERSATION turns. Paced (`thinkMs`), the loops pause between turns as
 * customers do, and their conversations are at every stage of their lives, as in a
 * steady state: loop c's conversation is c % PACED_TURNS_PER_CONVERSATION turns old when
 * the run starts (those turns are taken before it, not measured), so the first turns of
 * new conversations come spread over the run, one in PACED_TURNS_PER_CONVERSATION, rather
 * than all 50 in its first second.
 */
export async function runLoad(options: LoadOptions, turn: (conversation: ConversationState, turnId: string) => Promise<TurnSample>): Promise<{ samples: TurnSample[]; seconds: number }> {
  const paced = options.thinkMs > 0;
  const every = paced ? PACED_TURNS_PER_CONVERSATION : TURNS_PER_CONVERSATION;
  const loops = Array.from({ length: options.concurrency }, (_, c) => ({ c, age: paced ? c % every : 0, conversation: { uuid: null } as ConversationState }));
  const prefix = `${options.scenario}-${options.side}-r${options.round}`;
  // The turns before the run: one at a time per loop (a conversation's turns wait for each other), the loops together.
  await Promise.all(
    loops.map(async ({ c, age, conversation }) => {
      for (let n = 0; n < age; n++) {
        const sample = await turn(conversation, `${prefix}-c${c}-before${n}`);
        if (!sample.ok) throw new Error(`a turn before the run failed: ${sample.error}`);
      }
    }),
  );
  const samples: TurnSample[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    loops.map(async ({ c, age, conversation }) => {
      if (paced) await sleep(options.thinkMs * fraction(c, -1));
      for (let n = 0; performance.now() < deadline; n++) {
        // A fresh conversation now and then: the agent's daily limit (100 customer messages
        // per conversation by default) would otherwise answer without the model, and the
        // history read would keep growing on long runs with few conversations.
        if ((age + n) % every === 0) conversation.uuid = null;
        samples.push(await turn(conversation, `${prefix}-c${c}-n${n}`));
        if (paced) {
          const pause = options.thinkMs * (0.5 + fraction(c, n));
          // A pause past the deadline ends the loop (waking every loop at the deadline would send one burst).
          if (performance.now() + pause >= deadline) break;
          await sleep(pause);
        }
      }
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

export interface ConversationState {
  uuid: string | null;
}

export interface PlatformTarget {
  url: string;
  host: string;
  token: string;
  agentUuid: string;
  dispatcher: Agent;
}

/** One turn through `/chat`; the first turn of a conversation opens it. */
export async function platformTurn(target: PlatformTarget, streamed: boolean, conversation: ConversationState, turnId: string): Promise<TurnSample> {
  const body = JSON.stringify({ message: userMessage(turnId), ...(conversation.uuid ? { conversation_uuid: conversation.uuid } : {}) });
  const started = performance.now();
  const startedAt = wallClock();
  let firstDeltaAt: number | null = null;
  try {
    const res = await request(`${target.url}/api/v1/agents/${target.agentUuid}/chat`, {
      method: 'POST',
      dispatcher: target.dispatcher,
      headers: {
        host: target.host,
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        ...(streamed ? { accept: 'text/event-stream' } : {}),
      },
      body,
    });
    let data: any;
    if (!streamed) {
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`chat answered ${res.statusCode}: ${text.slice(0, 300)}`);
      data = JSON.parse(text).data;
    } else {
      let text = '';
      res.body.setEncoding('utf8');
      for await (const chunk of res.body) {
        if (firstDeltaAt === null && (text.length > 0 ? (text.slice(-20) + chunk) : chunk).includes('event: delta')) firstDeltaAt = wallClock();
        text += chunk;
      }
      if (res.statusCode !== 200) throw new Error(`chat answered ${res.statusCode}: ${text.slice(0, 300)}`);
      const done = /event: done\ndata: (.*)\n/.exec(text);
      if (!done) throw new Error(`the stream ended without a done event: ${text.slice(-300)}`);
      const parsed = JSON.parse(done[1]);
      data = parsed.data ?? parsed;
      if (firstDeltaAt === null) throw new Error('the stream had no delta event');
    }
    const latency = performance.now() - started;
    if (!data?.conversation_uuid) throw new Error(`no conversation_uuid in ${JSON.stringify(data).slice(0, 300)}`);
    conversation.uuid = data.conversation_uuid;
    return { turnId, startedAt, latency, firstDeltaAt, ok: true };
  } catch (error) {
    return { turnId, startedAt, latency: performance.now() - started, firstDeltaAt, ok: false, error: String((error as Error).message ?? error) };
  }
}

export interface BaselineTemplates {
  /** The turn id the templates were captured with (replaced by each turn's own). */
  sampleId: string;
  modelUrl: string;
  webhookUrl: string;
  webhookToken: string;
  agentUuid: string;
  /** The kernel's two model request bodies of a tool turn, and of a streamed turn, as JSON text. */
  toolRound1: string;
  toolRound2: string;
  streamed: string;
  streamedSampleId: string;
  dispatcher: Agent;
}

/** The same turn without the platform: the same bodies to the same model and webhook, with bare undici. */
export async function baselineTurn(t: BaselineTemplates, streamed: boolean, conversation: ConversationState, turnId: string): Promise<TurnSample> {
  conversation.uuid ??= crypto.randomUUID();
  const started = performance.now();
  const startedAt = wallClock();
  let firstDeltaAt: number | null = null;
  try {
    const post = (url: string, body: string, headers: Record<string, string> = {}) =>
      request(url, { method: 'POST', dispatcher: t.dispatcher, headers: { 'content-type': 'application/json', ...headers }, body });
    if (streamed) {
      const res = await post(`${t.modelUrl}/chat/completions`, t.streamed.split(t.streamedSampleId).join(turnId));
      res.body.setEncoding('utf8');
      let text = '';
      for await (const chunk of res.body) {
        // The first data line whose delta has non-empty content (the first chunk only has the role).
        if (firstDeltaAt === null && /"delta":\{"content":"[^"]/.test(text.slice(-200) + chunk)) firstDeltaAt = wallClock();
        text += chunk;
      }
      if (res.statusCode !== 200 || !text.includes('[DONE]')) throw new Error(`model stream answered ${res.statusCode}: ${text.slice(0, 300)}`);
    } else {
      const first = await post(`${t.modelUrl}/chat/completions`, t.toolRound1.split(t.sampleId).join(turnId));
      const completion: any = await first.body.json();
      const call = completion.choices?.[0]?.message?.tool_calls?.[0];
      if (first.statusCode !== 200 || !call) throw new Error(`model round 1 answered ${first.statusCode} without a tool call`);
      const hook = await post(
        t.webhookUrl,
        JSON.stringify({ intent: call.function.name, parameters: JSON.parse(call.function.arguments), conversation_uuid: conversation.uuid, agent_uuid: t.agentUuid, contact: null }),
        { authorization: `Bearer ${t.webhookToken}`, accept: 'application/json, text/plain;q=0.9, */*;q=0.5' },
      );
      const result = await hook.body.json();
      if (hook.statusCode !== 200 || !result) throw new Error(`webhook answered ${hook.statusCode}`);
      const second = await post(`${t.modelUrl}/chat/completions`, t.toolRound2.split(t.sampleId).join(turnId));
      const answer: any = await second.body.json();
      if (second.statusCode !== 200 || typeof answer.choices?.[0]?.message?.content !== 'string') throw new Error(`model round 2 answered ${second.statusCode}`);
    }
    return { turnId, startedAt, latency: performance.now() - started, firstDeltaAt, ok: true };
  } catch (error) {
    return { turnId, startedAt, latency: performance.now() - started, firstDeltaAt, ok: false, error: String((error as Error).message ?? error) };
  }
}
