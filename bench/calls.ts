/**
 * bench/calls: voice calls through the calls plugin (plugins/calls, Twilio driver in speech
 * mode), end to end against the Twilio-shaped server of the calls tests, with a scripted
 * model. N calls are placed through `POST /api/v1/call`, started a little apart (spread
 * over one turn's length, as calls are in life, not all on the same second); the server
 * rings, answers (the `answer` callback: the first TwiML), and plays each callee's script:
 * every utterance comes back to the kernel as a `SpeechResult` on the `<Gather>` action
 * (`POST /hooks/calls/{call_uuid}/listen`, signed), answered with TwiML after one runtime
 * turn; after its last utterance the callee hangs up. Speech takes the time it takes on a
 * phone (the server's ~2.5 words a second, scaled by BENCH_TIME_SCALE): the agent's line
 * 1 s, the caller's 3 s, so each call has one turn in flight about every 4 s.
 *
 * Three sides, measured in the same run, each with N calls (or conversations) at the same
 * pace:
 *
 *   calls   end to end: calls placed, answered, talked and ended through the Twilio-shaped
 *           server. Timed per `listen` callback where that server makes it (its fetch, seen
 *           through undici's diagnostics channels): request created -> TwiML received.
 *           Calls are set up and end while others talk, as in life. The goals are judged here.
 *   listen  the callback alone: N calls placed and answered through the server and held
 *           there listening; the bench then posts each call's `listen` callbacks itself,
 *           signed as Twilio signs them, and times request -> TwiML. Nothing else happens
 *           meanwhile, so its CPU per turn is the callback's. The calls are then hung up
 *           through the live action.
 *   chat    the design's floor for the same turn: the same agent through the runtime's own
 *           `POST /api/v1/agents/{uuid}/chat` (what bench/runtime.ts measures).
 *
 * The platform's time is each turn's latency less the union of the model's server-side
 * spans inside it. The model answers at once (no delay), so its share is what a loopback
 * model call costs; the calls path's extra cost shows as the difference with chat.
 *
 * The machine may be shared: each run also reports the CPU it cost per turn, the kernel's
 * and its PostgreSQL backends' (bench/calls/cpu.ts), net of what both spend idle, and the
 * load average as it started. Latencies grow with everyone else's load; CPU per turn
 * hardly does, so it says what the platform costs when the latencies are the machine's.
 *
 *   node -r ./bin/register-ts.js bench/calls.ts      (npm run bench:calls)
 *
 * Processes: the kernel (bench/calls/kernel.ts, role `start`) and the scripted model +
 * Twilio-shaped server (bench/calls/scripted.ts) each in a child of its own; calls are
 * placed, listen callbacks and chat turns sent from here. Each round measures every side
 * once, a different one first each round; per side the median of the rounds' figures is
 * reported.
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default: an embedded server started for the run)
 *   BENCH_CALLS         concurrent calls (and chat conversations) per side (default 100)
 *   BENCH_TURNS         utterances per call (default 6)
 *   BENCH_ROUNDS        rounds; each measures every side once (default 2)
 *   BENCH_WARMUP_CALLS  calls (of 2 turns) and chat conversations of each side's warm-up (default 20; 0: none)
 *   BENCH_TIME_SCALE    real ms per simulated ms of the Twilio-shaped server (default 1: phone speed;
 *                       0.25 plays calls 4x faster: 4x the turns per second for the same calls)
 *   BENCH_KERNEL_NODE_OPTIONS  extra node flags for the kernel child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_KERNEL_CONFIG  JSON object of extra kernel config overrides (experiments only)
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 */
import type { ChildProcess } from 'node:child_process';
import type { Pool } from 'pg';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { fmt, medians, numberEnv, printTable, round3, resultsStamp, writeResults } from './lib/bench-stats';
import { benchMain, type BenchFrame } from './lib/bench-main';
import { benchKernelSettings } from './lib/bench-kernel';
import { ask as askChild, spawnChild, spawnKernel } from './lib/children';
import { platformTurn, wallClock, type PlatformTarget, type TurnSample } from './lib/runtime-clients';
import { userMessage } from './lib/runtime-scripted';
import { signTwilioRequest } from '../test/plugins/channels/drivers/twilio/twilio-server';
import { databaseCpu, databaseCpuSpent } from './calls/cpu';
import type { KernelMessage, KernelSettings } from './calls/kernel';
import type { RunReport, ScriptedMessage, ScriptedRequest } from './calls/scripted';
import { replyText } from './lib/turn-ids';
import { runLine, summariseCalls, summariseRequests, type RunResult, type Side } from './calls/summary';

const RESULTS = path.join(__dirname, 'results', 'calls.json');
const TENANT_SLUG = 'bench';
const BASE_DOMAIN = 'localhost';
/** The agent's number, the calls' From. */
const OUR_NUMBER = '+14155550100';

/** The goals of issue 27: the platform's time from a SpeechResult callback to its TwiML. */
const GOALS = { calls: 100, ownP50Ms: 15, ownP99Ms: 50 };

/** The agent listens first (the callee speaks first): every callback after `answer` is a turn. */
const VOICE_SETTINGS = { interaction: { customer_speak_first: true } };

/** How long the Twilio-shaped server takes to say `text` (simulated ms): about 2.5 words a second, as it plays it. */
const speechMs = (text: string) => Math.max(1, Math.ceil(text.split(/\s+/).filter(Boolean).length / 2.5)) * 1000;
/** One turn's length on the line: the agent's line said, then the caller's next utterance. */
const cycleMs = (timeScale: number) => (speechMs(replyText('r0-k0-n0')) + speechMs(userMessage('r0-k0-n0'))) * timeScale;
/** Ringing (2 s) and answering machine detection (2.5 s for a human) before the first TwiML, simulated ms. */
const PICKUP_MS = 4500;

/** How long the idle CPU is sampled. */
const IDLE_SAMPLE_MS = 5000;
/** The wait before it, for the warm-up's last work (conversations closing) to end. */
const IDLE_SETTLE_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Sends `message` to the scripted child and waits for its answer of `type`. */
const ask = <T extends ScriptedMessage['type']>(child: ChildProcess, message: ScriptedRequest, type: T) => askChild<Extract<ScriptedMessage, { type: T }>>(child, message, type);

interface Target {
  url: string;
  host: string;
  token: string;
  agentUuid: string;
  dispatcher: Agent;
}

async function api(target: Target, method: 'GET' | 'POST', urlPath: string, body: unknown, expected: number[]): Promise<any> {
  const res = await request(`${target.url}${urlPath}`, {
    method,
    dispatcher: target.dispatcher,
    headers: { host: target.host, authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (!expected.includes(res.statusCode)) throw new Error(`${method} ${urlPath} answered ${res.statusCode} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text).data : undefined;
}

/** A callee's number: distinct per run and call (a script is per number; each run calls new contacts). */
const calleeNumber = (run: number, call: number) => `+346${String(run % 100).padStart(2, '0')}${String(call).padStart(6, '0')}`;
const turnId = (side: Side, run: number, line: number, n: number) => `${side}-r${run}-k${line}-n${n}`;

/** N calls placed `cycle / N` apart, each speaking `turns` utterances then hanging up; answers when every call ended. */
async function callsRun(scripted: ChildProcess, target: Target, run: number, lines: number, turns: number, timeScale: number): Promise<RunReport> {
  const scripts = Array.from({ length: lines }, (_, k) => [calleeNumber(run, k), { answer: 'human' as const, steps: Array.from({ length: turns }, (_, n) => ({ say: userMessage(turnId('calls', run, k, n)) })) }] as [string, any]);
  await ask(scripted, { type: 'script', scripts }, 'scripted');
  const gap = cycleMs(timeScale) / lines;
  const started = performance.now();
  const placed = await Promise.allSettled(
    scripts.map(async ([to], k) => {
      await sleep(started + k * gap - performance.now());
      await api(target, 'POST', '/api/v1/call', { agent_uuid: target.agentUuid, to }, [201]);
    }),
  );
  const refused = placed.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
  if (refused.length > 0) throw new Error(`${refused.length} of ${lines} calls could not be placed: ${String(refused[0].reason?.message ?? refused[0].reason)}`);
  // A call lasts its pickup and its turns; it is given three times that before the run is called stuck.
  const deadline = performance.now() + 3 * (PICKUP_MS * timeScale + turns * cycleMs(timeScale)) + 60_000;
  for (;;) {
    const progress = await ask(scripted, { type: 'progress' }, 'progress');
    if (progress.calls >= lines && progress.live === 0) break;
    if (performance.now() > deadline) throw new Error(`calls did not end in time: ${progress.live} of ${progress.calls} still live`);
    await sleep(250);
  }
  // The last status callbacks answered before the report (they come right after each call's end).
  await sleep(500);
  return (await ask(scripted, { type: 'report' }, 'report')).report;
}

/** The same turns at the same pace through `/chat`: N conversations, `turns` each, a turn's length apart. */
async function chatRun(target: PlatformTarget, run: number, lines: number, turns: number, timeScale: number): Promise<TurnSample[]> {
  const samples: TurnSample[] = [];
  const gap = cycleMs(timeScale) / lines;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lines }, async (_, k) => {
      await sleep(started + k * gap - performance.now());
      const conversation = { uuid: null as string | null };
      for (let n = 0; n < turns; n++) {
        if (n > 0) await sleep(cycleMs(timeScale));
        samples.push(await platformTurn(target, false, conversation, turnId('chat', run, k, n)));
      }
    }),
  );
  return samples;
}

/** CPU the kernel and its database backends spend between start() and stop(), net of their idle rate. */
class CpuWindow {
  private kernel0 = 0;
  private db0 = new Map<number, number>();
  private t0 = 0;
  kernelMs = 0;
  dbMs = 0;

  constructor(
    private readonly kernelCpu: () => Promise<number>,
    private readonly pool: Pool,
    private readonly idle: { kernel: number; db: number },
  ) {}

  async start(): Promise<void> {
    [this.kernel0, this.db0, this.t0] = [await this.kernelCpu(), await databaseCpu(this.pool), performance.now()];
  }

  async stop(): Promise<void> {
    const [kernel, db, seconds] = [await this.kernelCpu(), await databaseCpu(this.pool), (performance.now() - this.t0) / 1000];
    this.kernelMs = kernel - this.kernel0 - this.idle.kernel * seconds;
    this.dbMs = databaseCpuSpent(this.db0, db) - this.idle.db * seconds;
  }
}

/** A callee that picks up and listens, silent, for a day: its call stays in its `<Gather>` until it is hung up. */
const HOLD = { answer: 'human' as const, steps: [{ wait: 24 * 3600 * 1000 }] };

/**
 * N calls placed and answered through the Twilio-shaped server and held there, listening;
 * the bench then posts each call's `listen` callbacks itself, as Twilio would (its fields,
 * `X-Twilio-Signature` over the URL), at the calls' pace, and times request -> TwiML. No
 * call is set up or ended meanwhile: the CPU window holds callbacks only. The calls are
 * then hung up through the live action.
 */
async function listenRun(scripted: ChildProcess, target: Target, account: { sid: string; authToken: string }, run: number, lines: number, turns: number, timeScale: number, cpu: CpuWindow): Promise<TurnSample[]> {
  const numbers = Array.from({ length: lines }, (_, k) => calleeNumber(run, k));
  await ask(scripted, { type: 'script', scripts: numbers.map((to) => [to, HOLD]) }, 'scripted');
  const gap = cycleMs(timeScale) / lines;
  const placing = performance.now();
  const placed: Array<{ call_uuid: string; conversation_uuid: string; from: string; to: string }> = await Promise.all(
    numbers.map(async (to, k) => {
      await sleep(placing + k * gap - performance.now());
      return api(target, 'POST', '/api/v1/call', { agent_uuid: target.agentUuid, to }, [201]);
    }),
  );
  const deadline = performance.now() + 3 * PICKUP_MS * timeScale + 60_000;
  for (;;) {
    const progress = await ask(scripted, { type: 'progress' }, 'progress');
    if (progress.listening >= lines) break;
    if (performance.now() > deadline) throw new Error(`calls were not all answered in time: ${progress.listening} of ${lines} listening`);
    await sleep(250);
  }
  const sids = new Map((await ask(scripted, { type: 'calls' }, 'calls')).calls.map((call) => [call.to, call.sid]));
  // The answers' own work (their bus messages) done before the window opens.
  await sleep(1000);

  const samples: TurnSample[] = [];
  await cpu.start();
  const started = performance.now();
  await Promise.all(
    placed.map(async (call, k) => {
      await sleep(started + k * gap - performance.now());
      const url = `${target.url}/hooks/calls/${call.call_uuid}/listen`;
      // The fields Twilio posts on a Gather's action (as the Twilio-shaped server does), and the caller's words.
      const fields = {
        AccountSid: account.sid,
        ApiVersion: '2010-04-01',
        CallSid: sids.get(call.to) ?? '',
        CallStatus: 'in-progress',
        Called: call.to,
        Caller: call.from,
        Direction: 'outbound-api',
        From: call.from,
        To: call.to,
        FromCountry: 'US',
        ToCountry: 'US',
        Confidence: '0.92',
      };
      for (let n = 0; n < turns; n++) {
        if (n > 0) await sleep(cycleMs(timeScale));
        samples.push(await listenTurn(target.dispatcher, url, account.authToken, fields, turnId('listen', run, k, n)));
      }
    }),
  );
  await cpu.stop();

  await Promise.all(placed.map((call) => api(target, 'POST', `/api/v1/call/${call.conversation_uuid}/hangup`, undefined, [200, 202, 204])));
  const ending = performance.now() + 60_000;
  for (;;) {
    const progress = await ask(scripted, { type: 'progress' }, 'progress');
    if (progress.live === 0) break;
    if (performance.now() > ending) throw new Error(`held calls did not end in time: ${progress.live} still live`);
    await sleep(250);
  }
  await sleep(500);
  return samples;
}

/** One `listen` callback, signed as Twilio signs it; ok when the TwiML says the turn's line. */
async function listenTurn(dispatcher: Agent, url: string, authToken: string, fields: Record<string, string>, id: string): Promise<TurnSample> {
  const params = { ...fields, SpeechResult: userMessage(id) };
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(authToken, url, params), 'user-agent': 'TwilioProxy/1.1' };
  const body = new URLSearchParams(params).toString();
  const started = performance.now();
  const startedAt = wallClock();
  try {
    const res = await request(url, { method: 'POST', dispatcher, headers, body });
    const text = await res.body.text();
    const latency = performance.now() - started;
    if (res.statusCode !== 200 || !text.includes(replyText(id)) || !text.includes('<Gather')) throw new Error(`listen answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return { turnId: id, startedAt, latency, firstDeltaAt: null, ok: true };
  } catch (error) {
    return { turnId: id, startedAt, latency: performance.now() - started, firstDeltaAt: null, ok: false, error: String((error as Error).message ?? error) };
  }
}

async function main({ database, children, onClose }: BenchFrame): Promise<number> {
  const settings = {
    calls: numberEnv('BENCH_CALLS', 100),
    turnsPerCall: numberEnv('BENCH_TURNS', 6),
    rounds: numberEnv('BENCH_ROUNDS', 2),
    warmupCalls: numberEnv('BENCH_WARMUP_CALLS', 20),
    timeScale: numberEnv('BENCH_TIME_SCALE', 1),
  };
  const { Pool } = require('pg') as typeof import('pg');
  const pool = new Pool({ connectionString: database.url, max: 1 });
  onClose(() => pool.end());
  const dispatcher = new Agent({ connections: settings.calls * 2, keepAliveTimeout: 60_000 });
  onClose(() => dispatcher.close());
  const scriptedChild = spawnChild<Extract<ScriptedMessage, { type: 'ready' }>>(path.join(__dirname, 'calls', 'scripted.ts'), { BENCH_TIME_SCALE: String(settings.timeScale) });
  children.push(scriptedChild.child);
  const servers = await scriptedChild.ready;
  const scripted = scriptedChild.child;
  const kernelSettings: KernelSettings = { ...benchKernelSettings(database.url, servers.llmUrl, TENANT_SLUG, BASE_DOMAIN), twilioUrl: servers.twilioUrl };
  const kernelChild = spawnKernel(path.join(__dirname, 'calls', 'kernel.ts'), kernelSettings);
  children.push(kernelChild.child);
  const kernel = await kernelChild.ready;

  const host = `${TENANT_SLUG}.${BASE_DOMAIN}`;
  const seedTarget: Target = { url: kernel.url, host, token: kernel.token, agentUuid: '', dispatcher };
  const agentUuid = await seed(seedTarget, servers.accountSid, servers.authToken);
  const target: Target = { ...seedTarget, agentUuid };
  const chat: PlatformTarget = { url: kernel.url, host, token: kernel.token, agentUuid, dispatcher };

  // One call of one turn and one chat turn first: the path works (placing, answer, signature, turn, hangup) before anything is measured.
  let runIndex = 0;
  const check = summariseCalls(0, 1, 1, await callsRun(scripted, target, runIndex++, 1, 1, settings.timeScale));
  if (check.turns !== 1 || check.callsCompleted !== 1) throw new Error(`the sample call failed: ${runLine(check)} ${check.errors.join(' | ')}`);
  const firstChat = await chatRun(chat, runIndex++, 1, 1, settings.timeScale);
  if (!firstChat[0]?.ok) throw new Error(`the sample chat turn failed: ${firstChat[0]?.error}`);
  await ask(scripted, { type: 'report' }, 'report');

  console.log(
    `calls: ${settings.calls} concurrent calls of ${settings.turnsPerCall} turns (one turn per call every ${fmt(cycleMs(settings.timeScale) / 1000, 2)} s), ` +
      `${settings.rounds} rounds per side after a warm-up of ${settings.warmupCalls} (${os.cpus().length} CPUs, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`,
  );
  const idle = { kernel: 0, db: 0 };
  const kernelCpu = async () => (await askChild<Extract<KernelMessage, { type: 'cpu' }>>(kernelChild.child, 'cpu', 'cpu')).ms;
  const account = { sid: servers.accountSid, authToken: servers.authToken };
  const runSide = async (side: Side, lines: number, turns: number, round: number): Promise<RunResult> => {
    const index = runIndex++;
    const loadAverage = os.loadavg()[0];
    const cpu = new CpuWindow(kernelCpu, pool, idle);
    let result: RunResult;
    if (side === 'calls') {
      await cpu.start();
      const report = await callsRun(scripted, target, index, lines, turns, settings.timeScale);
      await cpu.stop();
      result = summariseCalls(round, lines, turns, report);
    } else {
      let samples: TurnSample[];
      if (side === 'listen') samples = await listenRun(scripted, target, account, index, lines, turns, settings.timeScale, cpu);
      else {
        await cpu.start();
        samples = await chatRun(chat, index, lines, turns, settings.timeScale);
        await cpu.stop();
      }
      result = summariseRequests(side, round, lines, samples, (await ask(scripted, { type: 'report' }, 'report')).report.spans);
    }
    const perTurn = (ms: number) => (result.turns > 0 ? round3(ms / result.turns) : NaN);
    return { ...result, kernelCpuMsPerTurn: perTurn(cpu.kernelMs), dbCpuMsPerTurn: perTurn(cpu.dbMs), loadAverage: round3(loadAverage) };
  };
  const sides: Side[] = ['calls', 'listen', 'chat'];
  if (settings.warmupCalls > 0) for (const side of sides) await runSide(side, settings.warmupCalls, 2, 0);
  // What the kernel and its database cost with nothing to do, per second (taken out of each run's CPU per turn), once the warm-up's work is done.
  await sleep(IDLE_SETTLE_MS);
  const idleWindow = new CpuWindow(kernelCpu, pool, { kernel: 0, db: 0 });
  await idleWindow.start();
  await sleep(IDLE_SAMPLE_MS);
  await idleWindow.stop();
  Object.assign(idle, { kernel: round3(idleWindow.kernelMs / (IDLE_SAMPLE_MS / 1000)), db: round3(idleWindow.dbMs / (IDLE_SAMPLE_MS / 1000)) });
  console.log(`  idle: kernel ${fmt(idle.kernel)} ms CPU/s, PostgreSQL ${fmt(idle.db)} ms CPU/s (taken out of the CPU per turn)`);
  const runs: RunResult[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // Each side goes first in turn.
    const order: Side[] = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
    for (const side of order) {
      const result = await runSide(side, settings.calls, settings.turnsPerCall, round);
      runs.push(result);
      console.log(runLine(result));
      if (result.errors.length > 0) console.log(`    first errors: ${result.errors.slice(0, 3).join(' | ')}`);
    }
  }

  const per = (side: Side) => {
    const mine = runs.filter((r) => r.side === side);
    const callsOnly = side === 'calls';
    const lowest = (pick: (r: RunResult) => number | null) => (callsOnly ? Math.min(...mine.map((r) => pick(r) ?? 0)) : null);
    const figures = medians(mine, ['turnsPerSecond', 'latencyP50', 'latencyP99', 'modelP50', 'modelP99', 'ownP50', 'ownP99', 'answerP50', 'answerP99', 'secondsAllLive', 'kernelCpuMsPerTurn', 'dbCpuMsPerTurn', 'loadAverage']);
    return {
      ...figures,
      answerP50: callsOnly ? figures.answerP50 : null,
      answerP99: callsOnly ? figures.answerP99 : null,
      callsCompleted: lowest((r) => r.callsCompleted),
      peakLive: lowest((r) => r.peakLive),
      secondsAllLive: callsOnly ? figures.secondsAllLive : null,
    };
  };
  const summary = { calls: per('calls'), listen: per('listen'), chat: per('chat') };
  // What the calls path costs beyond the runtime turn alone (chat, the floor), end to end and per callback.
  const callsPath = {
    callsOwnP50: round3(summary.calls.ownP50 - summary.chat.ownP50),
    callsOwnP99: round3(summary.calls.ownP99 - summary.chat.ownP99),
    listenOwnP50: round3(summary.listen.ownP50 - summary.chat.ownP50),
    listenOwnP99: round3(summary.listen.ownP99 - summary.chat.ownP99),
  };
  // Judged end to end (calls set up and ended while others talk, as in life); the listen side is the callback alone.
  const goals = {
    concurrentCalls: { goal: `>= ${GOALS.calls} calls in progress at once`, value: summary.calls.peakLive ?? 0, met: (summary.calls.peakLive ?? 0) >= GOALS.calls },
    ownP50: { goal: `<= ${GOALS.ownP50Ms} ms`, value: summary.calls.ownP50, met: summary.calls.ownP50 <= GOALS.ownP50Ms },
    ownP99: { goal: `<= ${GOALS.ownP99Ms} ms`, value: summary.calls.ownP99, met: summary.calls.ownP99 <= GOALS.ownP99Ms },
  };

  const met = (goal: { met: boolean }) => (goal.met ? 'MET' : 'MISSED');
  const three = (pick: (side: (typeof summary)['calls']) => number | null, digits = 2, unit = ' ms') =>
    `${fmt(pick(summary.calls) ?? NaN, digits)} | ${fmt(pick(summary.listen) ?? NaN, digits)} | ${fmt(pick(summary.chat) ?? NaN, digits)}${unit}`;
  console.log('');
  console.log(`median of ${settings.rounds} runs per side; calls: end to end through the Twilio-shaped server; listen: callbacks posted by the bench on ${settings.calls} held calls; chat: the runtime turn alone`);
  console.log(`platform time = SpeechResult callback -> TwiML (calls, listen) or request -> answer (chat), less the model's spans`);
  printTable(
    [
      ['calls in progress at once (peak, lowest of the runs)', `${summary.calls.peakLive} (all ${settings.calls} for ${fmt(summary.calls.secondsAllLive ?? 0, 1)} s)`, `goal >= ${GOALS.calls} ${met(goals.concurrentCalls)}`],
      ['calls completed (every turn heard; lowest of the runs)', `${summary.calls.callsCompleted} of ${settings.calls}`, ''],
      ['turns/s  calls | listen | chat', three((x) => x.turnsPerSecond, 1, ''), 'set by the calls’ pace, not a capacity'],
      ['latency p50  calls | listen | chat', three((x) => x.latencyP50), ''],
      ['latency p99  calls | listen | chat', three((x) => x.latencyP99), ''],
      ['model’s time p50  calls | listen | chat', three((x) => x.modelP50), 'scripted, answers at once'],
      ['platform time p50  calls | listen | chat', three((x) => x.ownP50), `goal calls <= ${GOALS.ownP50Ms} ms ${met(goals.ownP50)}`],
      ['platform time p99  calls | listen | chat', three((x) => x.ownP99), `goal calls <= ${GOALS.ownP99Ms} ms ${met(goals.ownP99)}`],
      ['beyond the runtime turn p50  calls | listen', `${fmt(callsPath.callsOwnP50)} | ${fmt(callsPath.listenOwnP50)} ms`, 'less chat (the floor)'],
      ['beyond the runtime turn p99  calls | listen', `${fmt(callsPath.callsOwnP99)} | ${fmt(callsPath.listenOwnP99)} ms`, ''],
      ['CPU per turn, kernel  calls | listen | chat', three((x) => x.kernelCpuMsPerTurn), 'calls: their setup and end included'],
      ['CPU per turn, PostgreSQL  calls | listen | chat', three((x) => x.dbCpuMsPerTurn), 'the bench database’s backends'],
      ['load average (1 min) as runs started  calls | listen | chat', three((x) => x.loadAverage, 1, ''), `${os.cpus().length} CPUs, shared`],
      ['answer callback -> first TwiML p50 | p99', `${fmt(summary.calls.answerP50 ?? NaN)} | ${fmt(summary.calls.answerP99 ?? NaN)} ms`, 'no model'],
    ],
    28,
  );

  const invalid = runs.filter((r) => r.failed > 0 || r.unattributed > r.turns * 0.01 || (r.side === 'calls' && r.callsCompleted !== r.lines));
  if (invalid.length > 0) console.log(`  WARNING: ${invalid.length} run(s) had failed calls or turns, or unattributed turns; the figures are not valid`);
  const results = {
    ...resultsStamp('calls'),
    settings,
    idleCpuMsPerSecond: idle,
    summary,
    callsPath,
    goals,
    valid: invalid.length === 0,
    runs,
  };
  return writeResults(RESULTS, results);
}

/** Through the API: an active agent that lets the caller speak first, a Twilio connection to the scripted account, the agent's number and its phone channel. */
async function seed(target: Target, accountSid: string, authToken: string): Promise<string> {
  const agent = await api(
    target,
    'POST',
    '/api/v1/agents',
    { name: 'Orders', role: 'Customer service of an online shop', language: 'en-US', timezone: 'Europe/Madrid', settings: { voice: VOICE_SETTINGS } },
    [201],
  );
  const base = `/api/v1/agents/${agent.agent_uuid}`;
  await api(target, 'POST', `${base}/activate`, undefined, [200]);
  const connection = await api(target, 'POST', '/api/v1/channel-connections', { provider: 'twilio', label: 'Bench voice', credentials: { account_sid: accountSid, auth_token: authToken } }, [201]);
  await api(target, 'POST', `${base}/phone-numbers`, { number: OUR_NUMBER, capabilities: { call: true } }, [200]);
  const added = await api(target, 'POST', `${base}/channels`, { type: 'phone', name: 'Phone', config: { connection_uuid: connection.uuid } }, [200, 201]);
  const channel = ((added.channels ?? [added]) as Array<{ type: string }>).find((c) => c.type === 'phone');
  if (!channel) throw new Error(`seeding: the agent's channels have no phone channel: ${JSON.stringify(added).slice(0, 300)}`);
  return agent.agent_uuid;
}

benchMain(main);
