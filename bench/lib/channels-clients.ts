/**
 * The load generators of bench/channels.ts, run in the parent: N customers, each a loop
 * of turns until the deadline.
 *
 *   sms   the customer's SMS as Twilio posts it (signed form fields) to the channel's hook;
 *         the turn ends when the agent's reply reaches the scripted provider (the child
 *         tells us over IPC, with its own arrival stamp);
 *   chat  the same agent through the runtime's `POST /api/v1/agents/{uuid}/chat`
 *         (bench/lib/runtime-clients.ts's platform client), the context: what a turn costs
 *         without the channel around it.
 */
import type { ChildProcess } from 'node:child_process';
import type { Agent } from 'undici';
import { request } from 'undici';
import { fmt, percentile, round3 } from './bench-stats';
import { platformTurn, wallClock, type PlatformTarget } from './runtime-clients';
import { unionLength } from './runtime-scripted';
import { incomingSms, signedSmsHook, twilioSid } from './channels-twilio';
import type { ScriptedMessage, TurnRecord } from './channels-scripted';

/** `floor`: the SMS turn's statements and calls from bare pg (channels-floor.ts), ended and measured as `sms`. */
export type Side = 'sms' | 'chat' | 'floor';

export interface TurnSample {
  turnId: string;
  /** When the client sent the turn, on the system clock (runtime-clock.ts). */
  startedAt: number;
  /** Client-observed: SMS, until we heard of the reply's arrival at the provider; chat, until the answer was read. */
  latency: number;
  /** SMS only: until the hook acknowledged the message. */
  ackLatency: number | null;
  ok: boolean;
  error?: string;
}

/** Replies arriving at the provider, by turn id; a customer waits on its turn's. */
export class Arrivals {
  private waiting = new Map<string, (at: number) => void>();

  constructor(scripted: ChildProcess) {
    scripted.on('message', (message: ScriptedMessage) => {
      if (message?.type !== 'arrival') return;
      const resolve = this.waiting.get(message.turnId);
      this.waiting.delete(message.turnId);
      resolve?.(message.at);
    });
  }

  /** Registered before the message is sent: the reply may come before the hook's acknowledgement does. */
  expect(turnId: string, timeoutMs: number): { arrived: Promise<number>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<number>((resolve, reject) => {
      timer = setTimeout(() => {
        this.waiting.delete(turnId);
        reject(new Error(`no reply reached the provider within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(turnId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    // A turn that fails before it waits must not leave an unhandled rejection behind.
    arrived.catch(() => {});
    return {
      arrived,
      cancel: () => {
        clearTimeout(timer);
        this.waiting.delete(turnId);
      },
    };
  }
}

export interface SmsTarget {
  /** Where the kernel listens, and the hook's path on it. */
  kernelUrl: string;
  hookPath: string;
  /** The hook URL the provider was given: what it signs. */
  publicHookUrl: string;
  accountSid: string;
  authToken: string;
  /** The agent's number (the SMS's To). */
  ourNumber: string;
  dispatcher: Agent;
  arrivals: Arrivals;
  timeoutMs: number;
}

/** The customer message of a turn; the scripted model finds the turn's id in it. */
export const customerText = (turnId: string) => `Hi, is my order on its way? [turn ${turnId}]`;

/** One SMS turn: the signed webhook posted, then the reply awaited at the provider. */
export async function smsTurn(target: SmsTarget, from: string, turnId: string): Promise<TurnSample> {
  const fields = incomingSms({ accountSid: target.accountSid, from, to: target.ourNumber, body: customerText(turnId), sid: twilioSid('SM') });
  const hook = signedSmsHook(target.publicHookUrl, target.authToken, fields);
  const waiting = target.arrivals.expect(turnId, target.timeoutMs);
  const started = performance.now();
  const startedAt = wallClock();
  let ackLatency: number | null = null;
  try {
    const res = await request(`${target.kernelUrl}${target.hookPath}`, { method: 'POST', dispatcher: target.dispatcher, headers: hook.headers, body: hook.body });
    const text = await res.body.text();
    ackLatency = performance.now() - started;
    if (res.statusCode !== 200 || !text.includes('<Response>')) throw new Error(`the hook answered ${res.statusCode}: ${text.slice(0, 300)}`);
    await waiting.arrived;
    return { turnId, startedAt, latency: performance.now() - started, ackLatency, ok: true };
  } catch (error) {
    waiting.cancel();
    return { turnId, startedAt, latency: performance.now() - started, ackLatency, ok: false, error: String((error as Error).message ?? error) };
  }
}

/** One turn through `/chat`, continuing the customer's conversation. */
export async function chatTurn(target: PlatformTarget, conversation: { uuid: string | null }, turnId: string): Promise<TurnSample> {
  const sample = await platformTurn(target, false, conversation, turnId);
  return { turnId, startedAt: sample.startedAt, latency: sample.latency, ackLatency: null, ok: sample.ok, ...(sample.error ? { error: sample.error } : {}) };
}

/** Runs `concurrency` customers for `seconds`, each sending its next turn when its last ended. */
export async function runCustomers(concurrency: number, seconds: number, turn: (customer: number, n: number) => Promise<TurnSample>): Promise<{ samples: TurnSample[]; seconds: number }> {
  const samples: TurnSample[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, customer) => {
      for (let n = 0; performance.now() < deadline; n++) samples.push(await turn(customer, n));
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

export interface RunResult {
  side: Side;
  round: number;
  turns: number;
  turnsPerSecond: number;
  failed: number;
  /** Turns whose model span (or, SMS, arrival at the provider) was not recorded: not in the platform-time figures. */
  unattributed: number;
  /** SMS: inbound POST start -> reply's arrival at the provider (the provider's stamp); chat: the request's latency. */
  endToEndP50: number;
  endToEndP95: number;
  /** That less the union of the turn's model spans and (SMS) the agent's configured pacing wait: the platform's own time. */
  ownP50: number;
  ownP95: number;
  /** SMS only: the hook's acknowledgement. */
  ackP50: number | null;
  ackP95: number | null;
  /** SMS: the pacing wait the agent's settings put before the reply's send (median over the turns; subtracted from own time). */
  pacingWaitMs: number | null;
  /** Counters of the scripted child over the run. */
  modelRequests: number;
  providerMessages: number;
  providerRefused: number;
  errors: string[];
}

export type TurnsReport = Extract<ScriptedMessage, { type: 'turns' }>;

/**
 * Per-turn figures of one run. Only spans inside the turn count (a request the platform
 * makes after the reply went out, e.g. a memory summary, is not the turn's). Start stamps
 * are this process's, end and span stamps the scripted child's, both on the system clock.
 */
export function summarise(side: Side, round: number, samples: TurnSample[], seconds: number, report: TurnsReport, pacingWait: (turnId: string) => number = () => 0): RunResult {
  const ok = samples.filter((s) => s.ok);
  const endToEnd: number[] = [];
  const own: number[] = [];
  const acks: number[] = [];
  const waits: number[] = [];
  let unattributed = 0;
  for (const sample of ok) {
    if (sample.ackLatency !== null) acks.push(sample.ackLatency);
    const record: TurnRecord | undefined = report.turns[sample.turnId];
    const end = side !== 'chat' ? record?.arrivals[0] : sample.startedAt + sample.latency;
    if (!record || end === undefined || record.spans.length === 0) {
      unattributed++;
      continue;
    }
    const spans = record.spans.map(([s, e]) => [Math.max(s, sample.startedAt), Math.min(e, end)] as [number, number]).filter(([s, e]) => e > s);
    const wait = side !== 'chat' ? pacingWait(sample.turnId) : 0;
    waits.push(wait);
    endToEnd.push(end - sample.startedAt);
    own.push(end - sample.startedAt - unionLength(spans) - wait);
  }
  for (const values of [endToEnd, own, acks, waits]) values.sort((a, b) => a - b);
  const p = (values: number[], at: number) => round3(percentile(values, at));
  return {
    side,
    round,
    turns: ok.length,
    turnsPerSecond: ok.length / seconds,
    failed: samples.length - ok.length,
    unattributed,
    endToEndP50: p(endToEnd, 50),
    endToEndP95: p(endToEnd, 95),
    ownP50: p(own, 50),
    ownP95: p(own, 95),
    ackP50: side !== 'chat' ? p(acks, 50) : null,
    ackP95: side !== 'chat' ? p(acks, 95) : null,
    pacingWaitMs: side !== 'chat' ? p(waits, 50) : null,
    modelRequests: report.modelRequests,
    providerMessages: report.providerMessages,
    providerRefused: report.providerRefused,
    errors: [...new Set(samples.filter((s) => !s.ok).map((s) => s.error ?? '?'))].slice(0, 5),
  };
}

/** One line of a run, as the bench prints it. */
export function runLine(result: RunResult): string {
  return (
    `  round ${result.round} ${result.side.padEnd(4)} ${fmt(result.turnsPerSecond, 0).padStart(6)} turns/s  ` +
    `end to end p50 ${fmt(result.endToEndP50)} p95 ${fmt(result.endToEndP95)} ms  platform p50 ${fmt(result.ownP50)} p95 ${fmt(result.ownP95)} ms` +
    (result.side !== 'chat' ? `  (pacing wait ${fmt(result.pacingWaitMs ?? NaN)} ms taken out)  hook ack p50 ${fmt(result.ackP50 ?? NaN)} ms` : '') +
    `  (${result.turns} turns, ${result.failed} failed, ${result.unattributed} unattributed)`
  );
}
