/**
 * The scripted side of bench/runtime.ts, run in a child process of its own: the fake
 * model (core/testing/fake-llm-server.ts) answering at once, and an intent webhook
 * receiver answering JSON at once. Each records, per turn, the server-side span of every
 * request it served (received -> response written) and, for a streamed answer, when the
 * first content chunk was written, so the parent can subtract the model's and the
 * webhook's time from a turn's latency.
 *
 * A turn is known by the id the load generator puts in the user message (`[turn <id>]`);
 * the model passes it on as the tool call's `order`, so the webhook knows it too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlmServer, type FakeLlmReply, type FakeLlmRequest } from '../../core/testing/fake-llm-server';
import { clockCorrection } from './runtime-clock';

export const TOOL_NAME = 'check_order';
/** The streamed answer: 50 tokens. */
export const STREAM_TOKENS = Array.from({ length: 50 }, (_, i) => `tok${i} `);
const TURN_ID = /\[turn ([A-Za-z0-9_-]+)\]/;
/** Turn ids with this prefix also keep the model's request bodies (the baseline's templates). */
export const SAMPLE_PREFIX = 'sample';

export interface TurnRecord {
  /** [start, end] of each model and webhook request served for the turn, system-clock ms. */
  spans: Array<[number, number]>;
  /** When the model wrote the turn's first content chunk (streamed answers only), on the system clock (runtime-clock.ts). */
  firstChunkSentAt: number | null;
}

export type ScriptedMessage =
  | { type: 'ready'; llmUrl: string; webhookUrl: string }
  | { type: 'turns'; turns: Record<string, TurnRecord> }
  | { type: 'samples'; bodies: Record<string, unknown[]> }
  | { type: 'error'; error: string };

const wallClock = () => performance.timeOrigin + performance.now();

/** The message a load generator sends for a turn (tool scenario ids start with `tool`, streamed ones with `sse`). */
export const userMessage = (turnId: string) => `Where is my order? [turn ${turnId}]`;

/** What the model answers, by the turn's id and whether the tool has already answered in this turn. */
export function scriptedReply(request: FakeLlmRequest): { turnId: string | null; reply: FakeLlmReply } {
  const messages: any[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message?.role === 'user') lastUser = index;
  });
  const content = lastUser >= 0 ? messages[lastUser].content : '';
  const turnId = TURN_ID.exec(typeof content === 'string' ? content : JSON.stringify(content))?.[1] ?? null;
  // A structured check (the guard's, with guard rules; the bench agent has none) answers "no rule".
  if (request.body?.response_format?.json_schema?.name === 'guard_check') return { turnId, reply: { json: { rule_uuid: null } } };
  if (turnId?.includes('sse')) return { turnId, reply: { content: STREAM_TOKENS.join(''), chunks: STREAM_TOKENS } };
  const toolAnswered = messages.slice(lastUser + 1).some((message) => message?.role === 'tool');
  if (toolAnswered) return { turnId, reply: { content: 'Your order is on its way and arrives on Tuesday.' } };
  return { turnId, reply: { toolCalls: [{ name: TOOL_NAME, arguments: { order: turnId ?? 'unknown' } }] } };
}

export async function runScriptedServers(): Promise<void> {
  // Spans and stamps are kept on the system clock, to compare with the load generator's (runtime-clock.ts).
  const correction = clockCorrection();
  const now = () => wallClock() + correction;
  let turns = new Map<string, TurnRecord>();
  const samples = new Map<string, unknown[]>();
  const recordOf = (turnId: string) => {
    let record = turns.get(turnId);
    if (!record) turns.set(turnId, (record = { spans: [], firstChunkSentAt: null }));
    return record;
  };

  const model = await startFakeLlmServer({
    fallback: (request) => {
      const { turnId, reply } = scriptedReply(request);
      if (turnId) {
        if (turnId.startsWith(SAMPLE_PREFIX)) {
          const list = samples.get(turnId) ?? [];
          list.push(request.body);
          samples.set(turnId, list);
        }
        // The fake server answers synchronously once this function returns (no delayMs, no
        // chunkDelayMs): a microtask queued now runs after its res.end(), i.e. at response end.
        queueMicrotask(() => {
          const record = recordOf(turnId);
          record.spans.push([request.receivedAt + correction, now()]);
          if (record.firstChunkSentAt === null && request.chunksSentAt.length > 0) record.firstChunkSentAt = request.chunksSentAt[0] + correction;
        });
      }
      return reply;
    },
  });
  // Nothing is kept per request: a long run must not grow the server's memory.
  const trim = setInterval(() => model.requests.splice(0), 1000);

  const webhook = http.createServer((req, res) => {
    const receivedAt = now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const order = body?.parameters?.order;
      const payload = JSON.stringify({ order, status: 'shipped', eta: 'Tuesday' });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
      if (typeof order === 'string') recordOf(order).spans.push([receivedAt, now()]);
    });
  });
  webhook.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));

  process.on('message', (message: any) => {
    if (message === 'turns') {
      const out = Object.fromEntries(turns);
      turns = new Map();
      process.send!({ type: 'turns', turns: out } satisfies ScriptedMessage);
    } else if (message === 'samples') {
      process.send!({ type: 'samples', bodies: Object.fromEntries(samples) } satisfies ScriptedMessage);
    } else if (message === 'stop') {
      clearInterval(trim);
      webhook.closeAllConnections();
      webhook.close();
      void model.close().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', llmUrl: model.url, webhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hooks/check-order` } satisfies ScriptedMessage);
}

/** Total length of the union of spans (requests of one turn may overlap, e.g. a guard check beside round 1). */
export function unionLength(spans: ReadonlyArray<readonly [number, number]>): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (s > end) {
      if (end > start) total += end - start;
      start = s;
      end = e;
    } else if (e > end) end = e;
  }
  if (end > start) total += end - start;
  return total;
}
