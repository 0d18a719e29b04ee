/**
 * The figures of bench/calls.ts's runs: per callback, the platform's time is its latency
 * (as the Twilio-shaped server saw it: request created -> TwiML complete) less the union of
 * the model's server-side spans inside it; the `listen` callbacks and chat turns the bench
 * times itself are read the same way. All stamps are on the system clock
 * (bench/lib/runtime-clock.ts).
 */
import { fmt, percentile, round3 } from '../lib/bench-stats';
import type { TurnSample } from '../lib/runtime-clients';
import { unionLength } from '../lib/runtime-scripted';
import type { RunReport } from './scripted';

/** calls: end to end through the Twilio-shaped server; listen: callbacks the bench posts itself on live calls; chat: the runtime turn alone. */
export type Side = 'calls' | 'listen' | 'chat';

export interface RunResult {
  side: Side;
  round: number;
  /** Calls placed (calls, listen) or conversations (chat). */
  lines: number;
  turns: number;
  failed: number;
  /** Turns with no model span recorded: not in the platform-time figures. */
  unattributed: number;
  /** Turns answered per second, first turn's start to last turn's end. */
  turnsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  /** The model's time per turn (union of its spans inside the turn). */
  modelP50: number;
  modelP99: number;
  /** The platform's time: latency less the model's. */
  ownP50: number;
  ownP99: number;
  ownMax: number;
  /** Calls only: the answer callback (picked up -> the first TwiML, no model). */
  answerP50: number | null;
  answerP99: number | null;
  /** Calls only: calls that heard every turn and ended as the caller hung up; and the most in progress at once. */
  callsCompleted: number | null;
  callsFailed: number | null;
  peakLive: number | null;
  /** Seconds during which every call placed was in progress at once. */
  secondsAllLive: number | null;
  /** CPU the run cost per turn, ms: the kernel's, and its PostgreSQL backends' (calls: the calls' setup and end included); set by the caller. */
  kernelCpuMsPerTurn: number | null;
  dbCpuMsPerTurn: number | null;
  /** The machine's 1-minute load average as the run started (the machine is shared). */
  loadAverage: number | null;
  errors: string[];
}

const sorted = (values: number[]) => values.sort((a, b) => a - b);
const p = (values: number[], at: number) => round3(percentile(values, at));

function ownTimes(turns: Array<{ turnId: string; start: number; end: number }>, spans: RunReport['spans']) {
  const latency: number[] = [];
  const model: number[] = [];
  const own: number[] = [];
  let unattributed = 0;
  for (const turn of turns) {
    latency.push(turn.end - turn.start);
    const list = spans[turn.turnId];
    if (!list || list.length === 0) {
      unattributed++;
      continue;
    }
    // Only the model's time inside the turn (a request made after the answer, e.g. for memory, is not the turn's).
    const inside = list.map(([s, e]) => [Math.max(s, turn.start), Math.min(e, turn.end)] as [number, number]).filter(([s, e]) => e > s);
    const modelMs = unionLength(inside);
    model.push(modelMs);
    own.push(turn.end - turn.start - modelMs);
  }
  return { latency: sorted(latency), model: sorted(model), own: sorted(own), unattributed };
}

/** The turn figures every side has: how many, how fast, their latencies and the platform's share. */
function turnFigures(turns: Array<{ turnId: string; start: number; end: number }>, attempted: number, spans: RunReport['spans']) {
  const figures = ownTimes(turns, spans);
  return {
    turns: turns.length,
    failed: attempted - turns.length,
    unattributed: figures.unattributed,
    turnsPerSecond: round3(rate(turns)),
    latencyP50: p(figures.latency, 50),
    latencyP99: p(figures.latency, 99),
    modelP50: p(figures.model, 50),
    modelP99: p(figures.model, 99),
    ownP50: p(figures.own, 50),
    ownP99: p(figures.own, 99),
    ownMax: round3(figures.own[figures.own.length - 1] ?? NaN),
  };
}

const rate = (turns: Array<{ start: number; end: number }>) =>
  turns.length === 0 ? 0 : turns.length / ((Math.max(...turns.map((t) => t.end)) - Math.min(...turns.map((t) => t.start))) / 1000);

export function summariseCalls(round: number, lines: number, turnsPerCall: number, report: RunReport): RunResult {
  const listens = report.callbacks.filter((c) => c.kind === 'listen');
  const good = listens.filter((c) => c.ok && c.turnId !== null && c.end !== null).map((c) => ({ turnId: c.turnId!, start: c.start, end: c.end! }));
  const answers = sorted(report.callbacks.filter((c) => c.kind === 'answer' && c.ok && c.end !== null).map((c) => c.end! - c.start));
  const completed = report.calls.filter((call) => call.status === 'completed' && call.endedBy === 'caller' && call.turnsHeard === turnsPerCall && call.errors.length === 0);
  let allLive = 0;
  for (let i = 1; i < report.live.length; i++) if (report.live[i - 1][1] >= lines) allLive += report.live[i][0] - report.live[i - 1][0];
  const errors = [
    ...listens.filter((c) => !c.ok).map((c) => `listen ${c.status ?? c.error ?? 'unanswered'}`),
    ...report.calls.flatMap((call) => call.errors),
    ...report.callbacks.filter((c) => c.kind !== 'listen' && !c.ok).map((c) => `${c.kind} ${c.status ?? c.error ?? 'unanswered'}`),
  ];
  return {
    side: 'calls',
    round,
    lines,
    ...turnFigures(good, listens.length, report.spans),
    answerP50: p(answers, 50),
    answerP99: p(answers, 99),
    callsCompleted: completed.length,
    callsFailed: report.calls.length - completed.length,
    peakLive: Math.max(0, ...report.live.map(([, n]) => n)),
    secondsAllLive: round3(allLive / 1000),
    kernelCpuMsPerTurn: null,
    dbCpuMsPerTurn: null,
    loadAverage: null,
    errors: [...new Set(errors)].slice(0, 5),
  };
}

/** Turns timed by the bench itself: `listen` callbacks it posted, or `/chat` requests. */
export function summariseRequests(side: 'listen' | 'chat', round: number, lines: number, samples: TurnSample[], spans: RunReport['spans']): RunResult {
  const good = samples.filter((s) => s.ok).map((s) => ({ turnId: s.turnId, start: s.startedAt, end: s.startedAt + s.latency }));
  return {
    side,
    round,
    lines,
    ...turnFigures(good, samples.length, spans),
    answerP50: null,
    answerP99: null,
    callsCompleted: null,
    callsFailed: null,
    peakLive: null,
    secondsAllLive: null,
    kernelCpuMsPerTurn: null,
    dbCpuMsPerTurn: null,
    loadAverage: null,
    errors: [...new Set(samples.filter((s) => !s.ok).map((s) => s.error ?? '?'))].slice(0, 5),
  };
}

export function runLine(r: RunResult): string {
  const head = `  round ${r.round} ${r.side.padEnd(5)} ${fmt(r.turnsPerSecond, 1).padStart(6)} turns/s  latency p50 ${fmt(r.latencyP50)} p99 ${fmt(r.latencyP99)} ms  model p50 ${fmt(r.modelP50)} ms  platform p50 ${fmt(r.ownP50)} p99 ${fmt(r.ownP99)} max ${fmt(r.ownMax)} ms`;
  const calls =
    r.side === 'calls'
      ? `  answer p50 ${fmt(r.answerP50 ?? NaN)} ms  calls ${r.callsCompleted}/${r.lines} completed, peak ${r.peakLive} in progress, all ${r.lines} in progress for ${fmt(r.secondsAllLive ?? 0, 1)} s`
      : '';
  const cpu = `  cpu/turn kernel ${fmt(r.kernelCpuMsPerTurn ?? NaN)} db ${fmt(r.dbCpuMsPerTurn ?? NaN)} ms  load ${fmt(r.loadAverage ?? NaN, 1)}`;
  return `${head}${calls}${cpu}  (${r.turns} turns, ${r.failed} failed, ${r.unattributed} unattributed)`;
}
