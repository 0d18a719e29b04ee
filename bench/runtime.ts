/**
 * bench/runtime: the conversation runtime (plugins/runtime) answering turns of an agent
 * made through the API, against a baseline that does the same turn's work with bare
 * undici, in the same run. Two scenarios:
 *
 *   tool  a JSON turn (`POST /api/v1/agents/{uuid}/chat`): the model calls the intent tool
 *         `check_order`, the runtime POSTs its webhook, the model answers text;
 *   sse   a streamed turn (`Accept: text/event-stream`): the model streams 50 tokens.
 *
 * Reported side by side: the platform's own time per turn (client-observed latency less
 * the union of the server-side spans of the turn's model and webhook requests, recorded by
 * the scripted servers), the first streamed `delta` reaching the client after the model
 * wrote its first content chunk, and (bench/lib/webhook-deliveries.ts) signed webhook
 * deliveries per second.
 *
 * Each scenario runs two passes. Back to back, every conversation sends its next turn as
 * soon as the last is answered: each side is saturated, so it measures capacity (turns/s,
 * and the kernel's share of its floor), and latency there is mostly queue. Paced, every
 * conversation pauses a customer's think time between turns (BENCH_THINK_MS), so every
 * side answers the same offered load: that pass judges the own-time goal.
 *
 *   node -r ./bin/register-ts.js bench/runtime.ts      (npm run bench:runtime)
 *
 * Processes: the kernel, the scripted model + intent webhook, and the streamed turn's
 * floor server, each in a child of its own; the load generators (platform and baseline clients) run here, in the parent. The
 * scripted servers answer at once. Rounds alternate kernel/baseline, baseline/kernel, ...;
 * per side the median of the rounds' percentiles is reported.
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default: an embedded server started for the run)
 *   BENCH_DURATION      seconds per measured run (default 10)
 *   BENCH_WARMUP        seconds of warm-up per side and scenario before the rounds (default 3)
 *   BENCH_ROUNDS        rounds; each measures both sides once (default 3)
 *   BENCH_CONVERSATIONS concurrent conversations (default 50)
 *   BENCH_THINK_MS      the paced pass's think time between a conversation's turns (default 1000; 0 skips
 *                       the pass, and the own-time goal is then judged back to back)
 *   BENCH_SCENARIOS     comma-separated scenarios to run (default: tool,sse)
 *   BENCH_PASSES        comma-separated passes to run (default: back-to-back,paced)
 *   BENCH_FLOOR=0       skip the floors: the tool turn's (bench/lib/runtime-floor.ts: the design's statements from
 *                       bare pg) and the streamed turn's (bench/lib/runtime-sse-floor.ts: a bare HTTP server doing them)
 *   BENCH_WEBHOOKS=0    skip the webhook deliveries part
 *   BENCH_WEBHOOK_N     events for the webhook deliveries part (default: its own, 2000)
 *   BENCH_KERNEL_NODE_OPTIONS  extra node flags for the kernel child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_KERNEL_CONFIG  JSON object of extra kernel config overrides (experiments only)
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 */
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { fmt, median, numberEnv, percentile, printTable, round3, resultsStamp, writeResults } from './lib/bench-stats';
import { baselineTurn, platformTurn, runLoad, type BaselineTemplates, type PlatformTarget, type TurnSample } from './lib/runtime-clients';
import { SAMPLE_PREFIX, TOOL_NAME, runScriptedServers, unionLength, type ScriptedMessage, type TurnRecord } from './lib/runtime-scripted';
import { floorTurn, prepareFloor, type FloorTarget } from './lib/runtime-floor';
import type { SseFloorSettings } from './lib/runtime-sse-floor';
import { ask, stopChildren } from './lib/children';
import { SERVER_NODE_FLAGS } from './lib/server-node-flags';

const ROOT = path.resolve(__dirname, '..');
const REGISTER_TS = path.join(ROOT, 'bin', 'register-ts.js');
const RESULTS = path.join(__dirname, 'results', 'runtime.json');
const TENANT_SLUG = 'bench';
const BASE_DOMAIN = 'localhost';
const WEBHOOK_TOKEN = 'bench-intent-token';
/**
 * The kernel's defaults (DATABASE_POOL_MAX, DATABASE_POOL_MIN and its 30 s idle timeout,
 * RUNTIME_HISTORY_MESSAGES): the floors work with the same, so that after another side's
 * rounds both find their connections as the kernel's pool keeps them.
 */
const FLOOR_POOL = { max: 10, min: 10, idleTimeoutMillis: 30_000 };
const FLOOR_HISTORY_MESSAGES = 200;
const PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime'];

/** The goals of issue 23. */
const GOALS = { ownP50Ms: 10, ownP99Ms: 30, firstDeltaP50Ms: 5, deliveriesPerSecond: 1000 };

type Scenario = 'tool' | 'sse';
type Side = 'kernel' | 'baseline' | 'floor';
/**
 * back-to-back: each conversation sends its next turn as soon as the last is answered, so
 * every side runs saturated and its latency is mostly its queue (with N conversations,
 * latency = N / turns per second): this pass measures capacity. paced: each conversation
 * pauses a customer's think time between turns, so the sides answer the same offered load
 * and latency is the turn's own: this pass judges the own-time goal.
 */
type Pace = 'back-to-back' | 'paced';
const SCENARIOS: readonly Scenario[] = ['tool', 'sse'];

type KernelMessage = { type: 'ready'; url: string; token: string } | { type: 'error'; error: string };

const role = process.argv[2];
if (role === 'kernel') void kernelServer();
else if (role === 'floor-server') void floorServer();
else if (role === 'scripted')
  void runScriptedServers().catch((error) => {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies ScriptedMessage);
    process.exit(1);
  });
else
  void main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

interface RunResult {
  scenario: Scenario;
  pace: Pace;
  side: Side;
  round: number;
  turns: number;
  turnsPerSecond: number;
  failed: number;
  /** Turns whose model/webhook spans were not all recorded (not counted in the own-time figures). */
  unattributed: number;
  latencyP50: number;
  latencyP99: number;
  ownP50: number;
  ownP99: number;
  /** Streamed scenario: first delta at the client minus first chunk written by the model. */
  firstDeltaP50: number | null;
  firstDeltaP99: number | null;
  errors: string[];
}

async function main(): Promise<void> {
  const settings = {
    duration: numberEnv('BENCH_DURATION', 10),
    warmup: numberEnv('BENCH_WARMUP', 3),
    rounds: numberEnv('BENCH_ROUNDS', 3),
    conversations: numberEnv('BENCH_CONVERSATIONS', 50),
    thinkMs: numberEnv('BENCH_THINK_MS', 1000),
  };
  const paces = (process.env.BENCH_PASSES ?? (settings.thinkMs > 0 ? 'back-to-back,paced' : 'back-to-back')).split(',').map((name) => name.trim()) as Pace[];
  for (const pace of paces) if (pace !== 'back-to-back' && pace !== 'paced') throw new Error(`unknown pass "${pace}" (known: back-to-back, paced)`);
  if (paces.includes('paced') && settings.thinkMs === 0) throw new Error('the paced pass needs BENCH_THINK_MS > 0');
  const chosen = (process.env.BENCH_SCENARIOS ?? SCENARIOS.join(',')).split(',').map((name) => name.trim()) as Scenario[];
  for (const scenario of chosen) if (!SCENARIOS.includes(scenario)) throw new Error(`unknown scenario "${scenario}" (known: ${SCENARIOS.join(', ')})`);

  const { createTestDatabase, stopEmbedded } = require('../core/testing/test-database') as typeof import('../core/testing/test-database');
  const database = await createTestDatabase();
  const children: ChildProcess[] = [];
  const pools: Array<{ end(): Promise<void> }> = [];
  const dispatcher = new Agent({ connections: settings.conversations * 2, keepAliveTimeout: 60_000 });
  const results: Record<string, unknown> = {};
  let exitCode = 0;
  try {
    const scripted = spawnChild<Extract<ScriptedMessage, { type: 'ready' }>>('scripted', {}, []);
    children.push(scripted.child);
    const servers = await scripted.ready;
    const kernelChild = spawnChild<Extract<KernelMessage, { type: 'ready' }>>(
      'kernel',
      { BENCH_DATABASE_URL: database.url, BENCH_LLM_URL: servers.llmUrl, BENCH_KERNEL_CONFIG: process.env.BENCH_KERNEL_CONFIG ?? '' },
      [...SERVER_NODE_FLAGS, ...(process.env.BENCH_KERNEL_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)],
    );
    children.push(kernelChild.child);
    const kernel = await kernelChild.ready;

    const host = `${TENANT_SLUG}.${BASE_DOMAIN}`;
    const agentUuid = await seedAgent(kernel.url, host, kernel.token, servers.webhookUrl);
    const target: PlatformTarget = { url: kernel.url, host, token: kernel.token, agentUuid, dispatcher };

    // One turn of each kind through the platform, to check it works and to capture the
    // model request bodies the kernel sends: the baseline sends the same.
    const toolSample = `${SAMPLE_PREFIX}tool${crypto.randomBytes(4).toString('hex')}`;
    const sseSample = `${SAMPLE_PREFIX}sse${crypto.randomBytes(4).toString('hex')}`;
    for (const [id, streamed] of [[toolSample, false], [sseSample, true]] as const) {
      const sample = await platformTurn(target, streamed, { uuid: null }, id);
      if (!sample.ok) throw new Error(`the platform's ${streamed ? 'streamed' : 'tool'} sample turn failed: ${sample.error}`);
    }
    const bodies = (await ask<Extract<ScriptedMessage, { type: 'samples' }>>(scripted.child, 'samples', 'samples')).bodies;
    const toolBodies = (bodies[toolSample] ?? []).filter((body: any) => body?.response_format?.json_schema?.name !== 'guard_check');
    const sseBodies = (bodies[sseSample] ?? []).filter((body: any) => body?.response_format?.json_schema?.name !== 'guard_check');
    if (toolBodies.length !== 2) throw new Error(`expected 2 model requests for a tool turn, the kernel sent ${toolBodies.length}`);
    if (sseBodies.length !== 1 || (sseBodies[0] as any).stream !== true) throw new Error(`expected 1 streamed model request for an SSE turn, got ${JSON.stringify(sseBodies).slice(0, 300)}`);
    await ask(scripted.child, 'turns', 'turns'); // drop the samples' spans
    const templates: BaselineTemplates = {
      sampleId: toolSample,
      streamedSampleId: sseSample,
      modelUrl: servers.llmUrl,
      webhookUrl: servers.webhookUrl,
      webhookToken: WEBHOOK_TOKEN,
      agentUuid,
      toolRound1: JSON.stringify(toolBodies[0]),
      toolRound2: JSON.stringify(toolBodies[1]),
      streamed: JSON.stringify(sseBodies[0]),
      dispatcher,
    };

    console.log(
      `runtime: ${settings.conversations} concurrent conversations, ${settings.rounds} rounds x ${settings.duration}s per side after ${settings.warmup}s warm-up, ` +
        `back to back${settings.thinkMs > 0 ? ` and paced (think time ${settings.thinkMs} ms, 0.5-1.5x)` : ''} (${os.cpus().length} CPUs, node ${process.version})`,
    );
    const runs: RunResult[] = [];
    // The floors: the design's statements from bare pg beside the baseline's calls (tool), and
    // a bare HTTP server doing them around the streamed model call (sse, runtime-sse-floor.ts).
    let floor: FloorTarget | null = null;
    let sseFloor: PlatformTarget | null = null;
    if (process.env.BENCH_FLOOR !== '0') {
      const { Pool } = require('pg') as typeof import('pg');
      const pool = new Pool({ connectionString: database.url, ...FLOOR_POOL });
      pools.push(pool);
      await prepareFloor(pool);
      const tenant = await pool.query(`select uuid from tenants where slug = $1`, [TENANT_SLUG]);
      floor = { pool, tenantUuid: tenant.rows[0].uuid, agentUuid, historyMessages: FLOOR_HISTORY_MESSAGES };
      if (chosen.includes('sse')) {
        const settings: SseFloorSettings = {
          databaseUrl: database.url,
          tenantUuid: floor.tenantUuid,
          agentUuid,
          pool: FLOOR_POOL,
          historyMessages: FLOOR_HISTORY_MESSAGES,
          modelUrl: servers.llmUrl,
          streamed: templates.streamed,
          sampleId: sseSample,
        };
        const floorChild = spawnChild<{ type: 'ready'; url: string }>('floor-server', { BENCH_SSE_FLOOR: JSON.stringify(settings) }, SERVER_NODE_FLAGS);
        children.push(floorChild.child);
        sseFloor = { url: (await floorChild.ready).url, host: 'floor', token: 'floor', agentUuid, dispatcher };
      }
    }
    for (const scenario of chosen) {
      const streamed = scenario === 'sse';
      const run = async (pace: Pace, side: Side, seconds: number, round: number): Promise<RunResult> => {
        const thinkMs = pace === 'paced' ? settings.thinkMs : 0;
        const load = await runLoad({ scenario, side, round, concurrency: settings.conversations, seconds, thinkMs, dispatcher }, (conversation, turnId) =>
          side === 'kernel'
            ? platformTurn(target, streamed, conversation, turnId)
            : side === 'floor'
              ? streamed
                ? platformTurn(sseFloor!, true, conversation, turnId)
                : floorTurn(floor!, templates, conversation, turnId)
              : baselineTurn(templates, streamed, conversation, turnId),
        );
        const turns = (await ask<Extract<ScriptedMessage, { type: 'turns' }>>(scripted.child, 'turns', 'turns')).turns;
        return summarise(scenario, pace, side, round, load.samples, load.seconds, turns);
      };
      const sides: Side[] = (scenario === 'tool' && floor) || (scenario === 'sse' && sseFloor) ? ['kernel', 'baseline', 'floor'] : ['kernel', 'baseline'];
      if (settings.warmup > 0) for (const side of sides) await run('back-to-back', side, settings.warmup, 0);
      await analyze(database.url);
      for (const pace of paces) {
        for (let round = 1; round <= settings.rounds; round++) {
          // Each side goes first in turn.
          const order: Side[] = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
          for (const side of order) {
            const result = await run(pace, side, settings.duration, round);
            runs.push(result);
            console.log(
              `  ${scenario.padEnd(4)} ${pace === 'paced' ? 'paced ' : ''}round ${round} ${side.padEnd(8)} ${fmt(result.turnsPerSecond, 0).padStart(6)} turns/s  ` +
                `latency p50 ${fmt(result.latencyP50)} p99 ${fmt(result.latencyP99)} ms  own p50 ${fmt(result.ownP50)} p99 ${fmt(result.ownP99)} ms` +
                (streamed ? `  first delta p50 ${fmt(result.firstDeltaP50 ?? NaN)} p99 ${fmt(result.firstDeltaP99 ?? NaN)} ms` : '') +
                `  (${result.turns} turns, ${result.failed} failed, ${result.unattributed} unattributed)`,
            );
            if (result.errors.length > 0) console.log(`    first errors: ${result.errors.slice(0, 3).join(' | ')}`);
          }
        }
      }
    }

    const per = (scenario: Scenario, pace: Pace, side: Side) => {
      const mine = runs.filter((r) => r.scenario === scenario && r.pace === pace && r.side === side);
      if (mine.length === 0) return null;
      return {
        turnsPerSecond: median(mine.map((r) => r.turnsPerSecond)),
        latencyP50: median(mine.map((r) => r.latencyP50)),
        latencyP99: median(mine.map((r) => r.latencyP99)),
        ownP50: median(mine.map((r) => r.ownP50)),
        ownP99: median(mine.map((r) => r.ownP99)),
        firstDeltaP50: median(mine.map((r) => r.firstDeltaP50 ?? NaN)),
        firstDeltaP99: median(mine.map((r) => r.firstDeltaP99 ?? NaN)),
      };
    };
    const sidesOf = (scenario: Scenario, pace: Pace) => ({ kernel: per(scenario, pace, 'kernel'), baseline: per(scenario, pace, 'baseline'), floor: per(scenario, pace, 'floor') });
    const summary = paces.includes('back-to-back') ? Object.fromEntries(chosen.map((scenario) => [scenario, sidesOf(scenario, 'back-to-back')])) : {};
    const pacedSummary = paces.includes('paced') ? Object.fromEntries(chosen.map((scenario) => [scenario, sidesOf(scenario, 'paced')])) : null;
    const tool = summary.tool;
    const sse = summary.sse;
    const pacedTool = pacedSummary?.tool;
    const pacedSse = pacedSummary?.sse;
    const goals: Record<string, { goal: string; value: number; met: boolean }> = {};
    // Own time is judged where the sides answer the same offered load (the paced pass):
    // back to back it is each side's queue. The first delta is judged back to back, the
    // harder case (the kernel's loop saturated).
    const ownJudged = pacedTool?.kernel ?? tool?.kernel;
    if (ownJudged) {
      goals.ownP50 = { goal: `<= ${GOALS.ownP50Ms} ms`, value: round3(ownJudged.ownP50), met: ownJudged.ownP50 <= GOALS.ownP50Ms };
      goals.ownP99 = { goal: `<= ${GOALS.ownP99Ms} ms`, value: round3(ownJudged.ownP99), met: ownJudged.ownP99 <= GOALS.ownP99Ms };
    }
    if (sse?.kernel) goals.firstDeltaP50 = { goal: `<= ${GOALS.firstDeltaP50Ms} ms`, value: round3(sse.kernel.firstDeltaP50), met: sse.kernel.firstDeltaP50 <= GOALS.firstDeltaP50Ms };

    // ---- Webhook deliveries (bench/lib/webhook-deliveries.ts, another engineer's): run in this process after the rest.
    let webhooks: Awaited<ReturnType<typeof import('./lib/webhook-deliveries').benchWebhookDeliveries>> | null = null;
    if (process.env.BENCH_WEBHOOKS !== '0') {
      await stopChildren(children.splice(0));
      const { benchWebhookDeliveries } = require('./lib/webhook-deliveries') as typeof import('./lib/webhook-deliveries');
      webhooks = await benchWebhookDeliveries({ ...(process.env.BENCH_WEBHOOK_N ? { n: numberEnv('BENCH_WEBHOOK_N', 2000) } : {}) });
      goals.deliveriesPerSecond = { goal: `>= ${GOALS.deliveriesPerSecond}/s`, value: round3(webhooks.deliveriesPerSecond), met: webhooks.deliveriesPerSecond >= GOALS.deliveriesPerSecond };
      if (webhooks.restart) goals.restartLost = { goal: '0 lost', value: webhooks.restart.lost, met: webhooks.restart.lost === 0 };
    }

    const cell = (value: number | undefined | null, unit = 'ms') => (value === undefined || value === null || Number.isNaN(value) ? '-' : `${fmt(value)} ${unit}`);
    const met = (key: string) => (goals[key] ? (goals[key].met ? 'MET' : 'MISSED') : '');
    console.log('');
    console.log(`median of ${settings.rounds} runs per side`);
    const rows: Array<[string, string, string]> = [];
    const ownGoal = (key: 'ownP50' | 'ownP99', limit: number) => `goal kernel <= ${limit} ms ${met(key)}`;
    if (tool) {
      rows.push(['tool turn, back to back: turns/s  kernel | baseline', `${cell(tool.kernel?.turnsPerSecond, '')} | ${cell(tool.baseline?.turnsPerSecond, '')}`, '']);
      rows.push(['tool turn, back to back: latency p50  kernel | baseline', `${cell(tool.kernel?.latencyP50)} | ${cell(tool.baseline?.latencyP50)}`, '']);
      rows.push(['tool turn, back to back: own time p50  kernel | baseline', `${cell(tool.kernel?.ownP50)} | ${cell(tool.baseline?.ownP50)}`, pacedTool ? 'mostly queue' : ownGoal('ownP50', GOALS.ownP50Ms)]);
      rows.push(['tool turn, back to back: own time p99  kernel | baseline', `${cell(tool.kernel?.ownP99)} | ${cell(tool.baseline?.ownP99)}`, pacedTool ? '' : ownGoal('ownP99', GOALS.ownP99Ms)]);
      if (tool.floor) {
        rows.push(['tool turn floor, back to back: turns/s | own p50 | own p99', `${cell(tool.floor.turnsPerSecond, '')} | ${cell(tool.floor.ownP50)} | ${cell(tool.floor.ownP99)}`, 'the design’s statements from bare pg']);
        rows.push(['tool turn: kernel turns/s as a share of the floor’s', `${fmt((100 * (tool.kernel?.turnsPerSecond ?? NaN)) / tool.floor.turnsPerSecond, 1)}%`, '']);
      }
    }
    if (pacedTool) {
      rows.push(['tool turn, paced: turns/s offered and answered  kernel', cell(pacedTool.kernel?.turnsPerSecond, ''), `think time ${settings.thinkMs} ms`]);
      rows.push(['tool turn, paced: own time p50  kernel | baseline', `${cell(pacedTool.kernel?.ownP50)} | ${cell(pacedTool.baseline?.ownP50)}`, ownGoal('ownP50', GOALS.ownP50Ms)]);
      rows.push(['tool turn, paced: own time p99  kernel | baseline', `${cell(pacedTool.kernel?.ownP99)} | ${cell(pacedTool.baseline?.ownP99)}`, ownGoal('ownP99', GOALS.ownP99Ms)]);
      if (pacedTool.floor) rows.push(['tool turn floor, paced: own p50 | own p99', `${cell(pacedTool.floor.ownP50)} | ${cell(pacedTool.floor.ownP99)}`, '']);
    }
    if (sse) {
      rows.push(['sse turn, back to back: own time p50  kernel | baseline', `${cell(sse.kernel?.ownP50)} | ${cell(sse.baseline?.ownP50)}`, '']);
      rows.push(['sse, back to back: first delta p50  kernel | baseline', `${cell(sse.kernel?.firstDeltaP50)} | ${cell(sse.baseline?.firstDeltaP50)}`, `goal kernel <= ${GOALS.firstDeltaP50Ms} ms ${met('firstDeltaP50')}`]);
      rows.push(['sse, back to back: first delta p99  kernel | baseline', `${cell(sse.kernel?.firstDeltaP99)} | ${cell(sse.baseline?.firstDeltaP99)}`, '']);
      if (sse.floor) {
        rows.push(['sse floor: turns/s | first delta p50 | p99', `${cell(sse.floor.turnsPerSecond, '')} | ${cell(sse.floor.firstDeltaP50)} | ${cell(sse.floor.firstDeltaP99)}`, 'a bare HTTP server, the design’s statements']);
        rows.push(['sse turn: kernel turns/s as a share of the floor’s', `${fmt((100 * (sse.kernel?.turnsPerSecond ?? NaN)) / sse.floor.turnsPerSecond, 1)}%`, '']);
      }
    }
    if (pacedSse) {
      rows.push(['sse turn, paced: own time p50 | p99  kernel', `${cell(pacedSse.kernel?.ownP50)} | ${cell(pacedSse.kernel?.ownP99)}`, '']);
      rows.push(['sse, paced: first delta p50 | p99  kernel', `${cell(pacedSse.kernel?.firstDeltaP50)} | ${cell(pacedSse.kernel?.firstDeltaP99)}`, '']);
      if (pacedSse.floor) rows.push(['sse floor, paced: first delta p50 | p99', `${cell(pacedSse.floor.firstDeltaP50)} | ${cell(pacedSse.floor.firstDeltaP99)}`, '']);
    }
    if (webhooks) {
      rows.push(['webhook deliveries/s  kernel | baseline', `${cell(webhooks.deliveriesPerSecond, '/s')} | ${cell(webhooks.baselinePerSecond, '/s')}`, `goal kernel >= ${GOALS.deliveriesPerSecond}/s ${met('deliveriesPerSecond')}`]);
      if (webhooks.floor) {
        rows.push(['webhook deliveries floor: /s | statements each', `${cell(webhooks.floor.perSecond, '/s')} | ${fmt(webhooks.floor.statementsPerDelivery, 2)}`, 'the design’s statements from bare pg, the same POSTs']);
        rows.push(['webhook deliveries: kernel/floor', `${fmt(100 * (webhooks.kernelShareOfFloor ?? NaN), 1)}%`, '']);
      }
      rows.push(['webhook deliveries: SQL round trips each (kernel)', fmt(webhooks.statementsPerDelivery, 2), 'counted in process']);
      if (webhooks.restart) rows.push(['webhook restart: lost | duplicates', `${webhooks.restart.lost} | ${webhooks.restart.duplicates}`, `goal 0 lost ${met('restartLost')}`]);
    }
    printTable(rows, 24);

    const invalid = runs.filter((r) => r.failed > 0 || r.unattributed > r.turns * 0.01);
    if (invalid.length > 0) console.log(`  WARNING: ${invalid.length} run(s) had failed or unattributed turns; the figures are not valid`);
    const written = Object.assign(results, {
      ...resultsStamp('runtime'),
      settings,
      summary,
      pacedSummary,
      webhooks,
      goals,
      valid: invalid.length === 0,
      runs,
    });
    exitCode = writeResults(RESULTS, written);
  } finally {
    await stopChildren(children);
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
    await dispatcher.close().catch(() => {});
    await database.drop().catch((error) => console.error('dropping the bench database failed:', error));
    await stopEmbedded?.().catch(() => {});
  }
  process.exit(exitCode);
}

/**
 * Per-turn figures of one run. Own time = latency - union of the turn's server-side spans
 * (model and webhook requests, in the scripted child's clock; both differences, so no
 * clock is compared across processes). First delta = client's arrival stamp - the model's
 * first-chunk stamp: two processes' wall clocks on one host.
 */
function summarise(scenario: Scenario, pace: Pace, side: Side, round: number, samples: TurnSample[], seconds: number, turns: Record<string, TurnRecord>): RunResult {
  const expectedSpans = scenario === 'tool' ? 3 : 1; // model, webhook, model / one streamed model call
  const ok = samples.filter((s) => s.ok);
  const own: number[] = [];
  const latencies: number[] = [];
  const firstDelta: number[] = [];
  let unattributed = 0;
  for (const sample of ok) {
    latencies.push(sample.latency);
    const record = turns[sample.turnId];
    if (!record || record.spans.length < expectedSpans) {
      unattributed++;
      continue;
    }
    // Only what happened during the turn (a request the runtime makes after answering, e.g. for memory, is not the turn's).
    const end = sample.startedAt + sample.latency;
    const spans = record.spans.map(([s, e]) => [Math.max(s, sample.startedAt), Math.min(e, end)] as [number, number]).filter(([s, e]) => e > s);
    own.push(sample.latency - unionLength(spans));
    if (scenario === 'sse' && sample.firstDeltaAt !== null && record.firstChunkSentAt !== null) firstDelta.push(sample.firstDeltaAt - record.firstChunkSentAt);
  }
  const sort = (values: number[]) => values.sort((a, b) => a - b);
  sort(own);
  sort(latencies);
  sort(firstDelta);
  return {
    scenario,
    pace,
    side,
    round,
    turns: ok.length,
    turnsPerSecond: ok.length / seconds,
    failed: samples.length - ok.length,
    unattributed,
    latencyP50: round3(percentile(latencies, 50)),
    latencyP99: round3(percentile(latencies, 99)),
    ownP50: round3(percentile(own, 50)),
    ownP99: round3(percentile(own, 99)),
    firstDeltaP50: scenario === 'sse' ? round3(percentile(firstDelta, 50)) : null,
    firstDeltaP99: scenario === 'sse' ? round3(percentile(firstDelta, 99)) : null,
    errors: [...new Set(samples.filter((s) => !s.ok).map((s) => s.error ?? '?'))].slice(0, 5),
  };
}

/**
 * Statistics as a database in use has them. The bench's database is new, and autovacuum
 * looks at a new database about once a minute: until it analyzes the tables, the plans
 * the kernel's prepared statements settled on when the tables were empty stay cached on
 * its pooled connections (a turn's history read by the tenant's index, measured to slow
 * every turn as the table grew). After the warm-up, before the measured rounds.
 */
async function analyze(databaseUrl: string): Promise<void> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/** The agent, made through the API: active, with the one intent whose webhook is the scripted receiver. */
async function seedAgent(url: string, host: string, token: string, webhookUrl: string): Promise<string> {
  const call = async (method: string, urlPath: string, body: unknown, expected: number[]) => {
    const res = await request(`${url}${urlPath}`, {
      method: method as 'POST',
      headers: { host, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (!expected.includes(res.statusCode)) throw new Error(`seeding: ${method} ${urlPath} answered ${res.statusCode} ${text}`);
    return text ? JSON.parse(text).data : undefined;
  };
  const agent = await call('POST', '/api/v1/agents', { name: 'Orders', role: 'Customer service of an online shop', language: 'en-US', timezone: 'Europe/Madrid' }, [201]);
  const base = `/api/v1/agents/${agent.agent_uuid}`;
  await call(
    'POST',
    `${base}/intents`,
    {
      key: TOOL_NAME,
      name: 'Check order',
      description: 'When the customer asks where their order is',
      webhook: { url: webhookUrl, auth_token: WEBHOOK_TOKEN },
      parameters: [{ key: 'order', type: 'string', required: true }],
    },
    [200, 201],
  );
  await call('POST', `${base}/activate`, undefined, [200]);
  return agent.agent_uuid;
}

function spawnChild<Ready>(which: 'kernel' | 'scripted' | 'floor-server', env: Record<string, string>, flags: string[]): { child: ChildProcess; ready: Promise<Ready> } {
  const child = fork(__filename, [which], { execArgv: ['-r', REGISTER_TS, ...flags], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${which} child exited with ${code} before it was ready`)));
    child.on('message', (message: any) => {
      if (message?.type === 'ready') resolve(message);
      else if (message?.type === 'error') reject(new Error(`the ${which} child failed: ${message.error}`));
    });
  });
  return { child, ready };
}

// ---------------------------------------------------------------------------------------------
// Child: the kernel with the runtime and the plugins it depends on, talking to the scripted model.
// ---------------------------------------------------------------------------------------------

/** The streamed turn's floor server (runtime-sse-floor.ts), in a child of its own as the kernel is. */
async function floorServer(): Promise<void> {
  try {
    const { startSseFloorServer } = require('./lib/runtime-sse-floor') as typeof import('./lib/runtime-sse-floor');
    const server = await startSseFloorServer(JSON.parse(process.env.BENCH_SSE_FLOOR!));
    process.on('message', async (message) => {
      if (message !== 'stop') return;
      await server.close();
      process.exit(0);
    });
    process.send!({ type: 'ready', url: server.url });
  } catch (error) {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) });
    process.exit(1);
  }
}

async function kernelServer(): Promise<void> {
  try {
    const { Kernel } = require('../core/kernel/kernel') as typeof import('../core/kernel/kernel');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-runtime-'));
    const overrides = process.env.BENCH_KERNEL_CONFIG ? JSON.parse(process.env.BENCH_KERNEL_CONFIG) : {};
    const kernel = await Kernel.boot({
      role: 'serve',
      plugins: PLUGINS.map((id) => path.join(ROOT, 'plugins', id)),
      // Only what is set here: the host's environment must not change what is measured.
      env: {},
      migrate: true,
      config: {
        port: 0,
        host: '127.0.0.1',
        baseDomain: BASE_DOMAIN,
        databaseUrl: process.env.BENCH_DATABASE_URL,
        dataDir,
        secretsKey: crypto.randomBytes(32).toString('base64'),
        llmBaseUrl: process.env.BENCH_LLM_URL,
        llmModel: 'bench-model',
        llmApiKey: 'sk-bench',
        // The scripted model and webhook are on loopback, which egress refuses by default.
        egressAllowCidrs: ['127.0.0.0/8'],
        ...overrides,
      },
    });
    await kernel.start();
    const { token } = await kernel.tenants.createTenant({ slug: TENANT_SLUG });
    process.on('message', async (message) => {
      if (message !== 'stop') return;
      await kernel.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
    process.send!({ type: 'ready', url: kernel.url, token } satisfies KernelMessage);
  } catch (error) {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies KernelMessage);
    process.exit(1);
  }
}
