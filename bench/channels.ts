/**
 * bench/channels: an agent answering SMS through the channels plugin (plugins/channels,
 * Twilio driver), end to end: N customers (distinct From numbers) each post an incoming
 * SMS to the channel's hook as Twilio does (form fields, `X-Twilio-Signature`), wait for
 * the agent's reply to reach the provider, and send their next. The path measured: the
 * hook (signature, record, outbox) -> the bus -> a runtime turn -> the reply queued at
 * its pacing -> the bus -> the Twilio driver's send call.
 *
 * Beside it in the same run, for context, the same agent's turn through the runtime's own
 * `POST /api/v1/agents/{uuid}/chat` (what bench/runtime.ts measures), so the channel
 * path's extra cost shows as a ratio; and the SMS turn's floor (bench/lib/channels-floor.ts):
 * the design's own statements and the same calls from bare pg, no kernel.
 *
 * Reported per side: turns/s (a turn: inbound POST -> reply at the provider; chat: the
 * request), and the platform's own time per turn: that span less the union of the model's
 * server-side spans for the turn, and (SMS) less the wait the agent's pacing puts before
 * the send: the settings cannot make it zero (typing is at most 1,000 words a minute, so
 * the one-word reply waits 60 ms); it is reported apart.
 *
 *   node -r ./bin/register-ts.js bench/channels.ts      (npm run bench:channels)
 *
 * Processes: the kernel (bench/lib/channels-kernel.ts, role `start`: HTTP and the bus's
 * consumers) and the scripted model + Twilio-like provider (bench/lib/channels-scripted.ts)
 * each in a child of its own; the customers run here. Rounds alternate sms/chat,
 * chat/sms, ...; per side the median of the rounds' figures is reported.
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default: an embedded server started for the run)
 *   BENCH_DURATION      seconds per measured run (default 10)
 *   BENCH_WARMUP        seconds of warm-up per side before the rounds (default 3)
 *   BENCH_ROUNDS        rounds; each measures both sides once (default 3)
 *   BENCH_CONCURRENCY   concurrent customers (default 50)
 *   BENCH_TURN_TIMEOUT  seconds a customer waits for a reply before the turn counts as failed (default 30)
 *   BENCH_KERNEL_NODE_OPTIONS  extra node flags for the kernel child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_KERNEL_CONFIG  JSON object of extra kernel config overrides (experiments only)
 *   BENCH_FLOOR=0       skip the SMS turn's floor (bench/lib/channels-floor.ts: the design's statements and calls from bare pg)
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { paceReply, type PacingSettings } from '../plugins/channels/turns/pacing';
import { fmt, medians, numberEnv, printTable, round3, resultsStamp, writeResults } from './lib/bench-stats';
import { benchMain, type BenchFrame } from './lib/bench-main';
import { benchKernelSettings } from './lib/bench-kernel';
import { ask, spawnChild, spawnKernel } from './lib/children';
import { Arrivals, chatTurn, runCustomers, runLine, smsTurn, summarise, type RunResult, type Side, type SmsTarget, type TurnsReport } from './lib/channels-clients';
import type { KernelSettings } from './lib/channels-kernel';
import type { ProviderAccount, ScriptedMessage } from './lib/channels-scripted';
import { twilioSid } from './lib/channels-twilio';
import { floorSmsTurn, type ChannelsFloorTarget, type FloorThread } from './lib/channels-floor';
import { prepareFloor } from './lib/runtime-floor';
import { replyText } from './lib/turn-ids';
import type { PlatformTarget } from './lib/runtime-clients';

const RESULTS = path.join(__dirname, 'results', 'channels.json');
const TENANT_SLUG = 'bench';
const BASE_DOMAIN = 'localhost';
/** What the provider is told to call (behind a proxy, as deployed): the hook's signatures are over it. */
const PUBLIC_BASE_URL = 'https://sms.bench.example';
/** The agent's number, the SMS's To. */
const OUR_NUMBER = '+34910000000';

/** The kernel's defaults (DATABASE_POOL_MAX, RUNTIME_HISTORY_MESSAGES): the floor works with the same. */
const FLOOR_POOL_SIZE = 10;
const FLOOR_HISTORY_MESSAGES = 200;

/** The goals of issue 26. */
const GOALS = { turnsPerSecond: 300, ownP50Ms: 15 };

/**
 * As fast as the settings allow: no delay before a reply, typing at the most words a
 * minute, no jitter; no typing indicator (Twilio has none anyway); and a daily limit per
 * conversation the bench's long conversations cannot reach (the default, 100, would turn
 * the later turns into the limit message, with no model).
 */
const TEXT_SETTINGS = {
  timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 1000, typing_speed_wpm_max: 1000, typing_speed_char: 0, delay_jitter_min: 0, delay_jitter_max: 0 },
  typing_simulation: { show_typing_indicator: false },
  daily_limits: { daily_max_messages_per_conversation: 100_000 },
};
const PACING: PacingSettings = { timing_and_delay: TEXT_SETTINGS.timing_and_delay, typing_simulation: TEXT_SETTINGS.typing_simulation };
/** The wait the agent's pacing puts before a turn's reply is sent, as the channels plugin computes it. */
const pacingWait = (turnId: string) => paceReply([replyText(turnId)], PACING, () => 0)[0].sendAtMs;

/** A customer's number: distinct per run and customer, so each run starts new conversations. */
const customerNumber = (run: number, customer: number) => `+346${String(run % 100).padStart(2, '0')}${String(customer).padStart(6, '0')}`;

async function main({ database, children, onClose }: BenchFrame): Promise<number> {
  const settings = {
    duration: numberEnv('BENCH_DURATION', 10),
    warmup: numberEnv('BENCH_WARMUP', 3),
    rounds: numberEnv('BENCH_ROUNDS', 3),
    concurrency: numberEnv('BENCH_CONCURRENCY', 50),
    turnTimeoutSeconds: numberEnv('BENCH_TURN_TIMEOUT', 30),
  };
  const dispatcher = new Agent({ connections: settings.concurrency * 2, keepAliveTimeout: 60_000 });
  onClose(() => dispatcher.close());
  const account: ProviderAccount = { sid: twilioSid('AC'), authToken: crypto.randomBytes(16).toString('hex') };
  const scripted = spawnChild<Extract<ScriptedMessage, { type: 'ready' }>>(path.join(__dirname, 'lib', 'channels-scripted.ts'), { BENCH_PROVIDER_ACCOUNT: JSON.stringify(account) });
  children.push(scripted.child);
  const servers = await scripted.ready;
  const kernelSettings: KernelSettings = { ...benchKernelSettings(database.url, servers.llmUrl, TENANT_SLUG, BASE_DOMAIN), providerUrl: servers.providerUrl, publicBaseUrl: PUBLIC_BASE_URL };
  const kernelChild = spawnKernel(path.join(__dirname, 'lib', 'channels-kernel.ts'), kernelSettings);
  children.push(kernelChild.child);
  const kernel = await kernelChild.ready;

  const host = `${TENANT_SLUG}.${BASE_DOMAIN}`;
  const { agentUuid, channelUuid } = await seed(kernel.url, host, kernel.token, account);
  const hookPath = `/hooks/channels/${channelUuid}`;
  const sms: SmsTarget = {
    kernelUrl: kernel.url,
    hookPath,
    publicHookUrl: `${PUBLIC_BASE_URL}${hookPath}`,
    accountSid: account.sid,
    authToken: account.authToken,
    ourNumber: OUR_NUMBER,
    dispatcher,
    arrivals: new Arrivals(scripted.child),
    timeoutMs: settings.turnTimeoutSeconds * 1000,
  };
  const chat: PlatformTarget = { url: kernel.url, host, token: kernel.token, agentUuid, dispatcher };
  // The floor (BENCH_FLOOR=0: skipped): the SMS turn's statements and calls from bare pg, with the kernel's pool size.
  let floor: ChannelsFloorTarget | null = null;
  if (process.env.BENCH_FLOOR !== '0') {
    const { Pool } = require('pg') as typeof import('pg');
    const pool = new Pool({ connectionString: database.url, max: FLOOR_POOL_SIZE });
    onClose(() => pool.end());
    await prepareFloor(pool);
    const tenant = await pool.query(`select uuid from tenants where slug = $1`, [TENANT_SLUG]);
    floor = {
      pool,
      tenantUuid: tenant.rows[0].uuid,
      agentUuid,
      channelUuid,
      llmUrl: servers.llmUrl,
      providerUrl: servers.providerUrl,
      accountSid: account.sid,
      authToken: account.authToken,
      ourNumber: OUR_NUMBER,
      pacingWaitMs: pacingWait,
      historyMessages: FLOOR_HISTORY_MESSAGES,
      dispatcher,
      arrivals: sms.arrivals,
      timeoutMs: sms.timeoutMs,
    };
  }

  // One turn each way first: the path works (signature, turn, send) before anything is measured.
  const first = await smsTurn(sms, customerNumber(99, 0), 'check-sms');
  if (!first.ok) throw new Error(`the sample SMS turn failed: ${first.error}`);
  const firstChat = await chatTurn(chat, { uuid: null }, 'check-chat');
  if (!firstChat.ok) throw new Error(`the sample chat turn failed: ${firstChat.error}`);
  if (floor) {
    const firstFloor = await floorSmsTurn(floor, { conversationUuid: null, sessionUuid: null }, customerNumber(98, 0), 'check-floor');
    if (!firstFloor.ok) throw new Error(`the sample floor turn failed: ${firstFloor.error}`);
  }
  await ask(scripted.child, 'turns', 'turns');

  console.log(
    `channels: ${settings.concurrency} concurrent customers, ${settings.rounds} rounds x ${settings.duration}s per side after ${settings.warmup}s warm-up ` +
      `(${os.cpus().length} CPUs, node ${process.version})`,
  );
  const runs: RunResult[] = [];
  let runIndex = 0;
  const run = async (side: Side, seconds: number, round: number): Promise<RunResult> => {
    const index = runIndex++;
    const load = await runCustomers(settings.concurrency, seconds, (customer, n) => {
      const turnId = `${side}-r${round}-i${index}-c${customer}-n${n}`;
      if (side === 'floor') return floorSmsTurn(floor!, floorThreads(index, customer), customerNumber(index, customer), turnId);
      return side === 'sms' ? smsTurn(sms, customerNumber(index, customer), turnId) : chatTurn(chat, conversations(index, customer), turnId);
    });
    const report = await ask<TurnsReport>(scripted.child, 'turns', 'turns');
    return summarise(side, round, load.samples, load.seconds, report, pacingWait);
  };
  // Chat conversations, like SMS threads, are new in each run.
  const chatConversations = new Map<string, { uuid: string | null }>();
  const conversations = (index: number, customer: number) => {
    const key = `${index}:${customer}`;
    let conversation = chatConversations.get(key);
    if (!conversation) chatConversations.set(key, (conversation = { uuid: null }));
    return conversation;
  };

  const floorThreadsByKey = new Map<string, FloorThread>();
  const floorThreads = (index: number, customer: number) => {
    const key = `${index}:${customer}`;
    let thread = floorThreadsByKey.get(key);
    if (!thread) floorThreadsByKey.set(key, (thread = { conversationUuid: null, sessionUuid: null }));
    return thread;
  };

  const sides: Side[] = floor ? ['sms', 'chat', 'floor'] : ['sms', 'chat'];
  if (settings.warmup > 0) for (const side of sides) await run(side, settings.warmup, 0);
  for (let round = 1; round <= settings.rounds; round++) {
    // Each side goes first in turn.
    const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
    for (const side of order) {
      const result = await run(side, settings.duration, round);
      runs.push(result);
      console.log(runLine(result));
      if (result.errors.length > 0) console.log(`    first errors: ${result.errors.slice(0, 3).join(' | ')}`);
    }
  }

  const per = (side: Side) => {
    const figures = medians(
      runs.filter((r) => r.side === side),
      ['turnsPerSecond', 'endToEndP50', 'endToEndP95', 'ownP50', 'ownP95', 'ackP50', 'ackP95', 'pacingWaitMs'],
    );
    // The hook's acknowledgement and the pacing wait are the SMS side's only.
    return side !== 'chat' ? figures : { ...figures, ackP50: null, ackP95: null, pacingWaitMs: null };
  };
  const summary = { sms: per('sms'), chat: per('chat'), ...(floor ? { floor: per('floor') } : {}) };
  const ratios = {
    turnsPerSecond: round3(summary.sms.turnsPerSecond / summary.chat.turnsPerSecond),
    ownP50: round3(summary.sms.ownP50 / summary.chat.ownP50),
    ownP95: round3(summary.sms.ownP95 / summary.chat.ownP95),
  };
  const goals = {
    turnsPerSecond: { goal: `>= ${GOALS.turnsPerSecond} turns/s`, value: summary.sms.turnsPerSecond, met: summary.sms.turnsPerSecond >= GOALS.turnsPerSecond },
    ownP50: { goal: `<= ${GOALS.ownP50Ms} ms`, value: summary.sms.ownP50, met: summary.sms.ownP50 <= GOALS.ownP50Ms },
  };

  const met = (goal: { met: boolean }) => (goal.met ? 'MET' : 'MISSED');
  console.log('');
  console.log(`median of ${settings.rounds} runs per side; platform time = end to end less the model's spans${summary.sms.pacingWaitMs ? ` (sms: and the ${fmt(summary.sms.pacingWaitMs, 0)} ms pacing wait)` : ''}`);
  printTable(
    [
      ['turns/s  sms | chat', `${fmt(summary.sms.turnsPerSecond, 0)} | ${fmt(summary.chat.turnsPerSecond, 0)}`, `goal sms >= ${GOALS.turnsPerSecond} ${met(goals.turnsPerSecond)}`],
      ['end to end p50  sms | chat', `${fmt(summary.sms.endToEndP50)} | ${fmt(summary.chat.endToEndP50)} ms`, 'sms: inbound POST -> reply at the provider'],
      ['platform time p50  sms | chat', `${fmt(summary.sms.ownP50)} | ${fmt(summary.chat.ownP50)} ms`, `goal sms <= ${GOALS.ownP50Ms} ms ${met(goals.ownP50)}`],
      ['platform time p95  sms | chat', `${fmt(summary.sms.ownP95)} | ${fmt(summary.chat.ownP95)} ms`, ''],
      ['sms hook acknowledged p50 | p95', `${fmt(summary.sms.ackP50 ?? NaN)} | ${fmt(summary.sms.ackP95 ?? NaN)} ms`, ''],
      ['sms / chat: turns/s | platform p50 | p95', `${fmt(ratios.turnsPerSecond)} | ${fmt(ratios.ownP50)}x | ${fmt(ratios.ownP95)}x`, ''],
      ...(summary.floor
        ? ([
            ['floor: turns/s | platform p50 | p95', `${fmt(summary.floor.turnsPerSecond, 0)} | ${fmt(summary.floor.ownP50)} | ${fmt(summary.floor.ownP95)} ms`, 'the SMS turn’s statements and calls from bare pg'],
            ['sms turns/s as a share of the floor’s', `${fmt((summary.sms.turnsPerSecond / summary.floor.turnsPerSecond) * 100, 1)}%`, ''],
          ] as Array<[string, string, string]>)
        : []),
    ],
    24,
  );

  const invalid = runs.filter((r) => r.failed > 0 || r.unattributed > r.turns * 0.01 || r.providerRefused > 0);
  if (invalid.length > 0) console.log(`  WARNING: ${invalid.length} run(s) had failed, unattributed or refused turns; the figures are not valid`);
  const results = {
    ...resultsStamp('channels'),
    settings,
    summary,
    ratios,
    goals,
    valid: invalid.length === 0,
    runs,
  };
  return writeResults(RESULTS, results);
}

/** Through the API: an active agent paced as fast as its settings allow, a Twilio connection to the scripted provider, and the agent's SMS channel on it. */
async function seed(url: string, host: string, token: string, account: ProviderAccount): Promise<{ agentUuid: string; channelUuid: string }> {
  const call = async (method: 'POST', urlPath: string, body: unknown, expected: number[]) => {
    const res = await request(`${url}${urlPath}`, {
      method,
      headers: { host, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (!expected.includes(res.statusCode)) throw new Error(`seeding: ${method} ${urlPath} answered ${res.statusCode} ${text}`);
    return text ? JSON.parse(text).data : undefined;
  };
  const agent = await call(
    'POST',
    '/api/v1/agents',
    { name: 'Orders', role: 'Customer service of an online shop', language: 'en-US', timezone: 'Europe/Madrid', settings: { text: TEXT_SETTINGS } },
    [201],
  );
  await call('POST', `/api/v1/agents/${agent.agent_uuid}/activate`, undefined, [200]);
  const connection = await call(
    'POST',
    '/api/v1/channel-connections',
    { provider: 'twilio', label: 'Bench SMS', credentials: { account_sid: account.sid, auth_token: account.authToken, from_number: OUR_NUMBER } },
    [201],
  );
  const added = await call('POST', `/api/v1/agents/${agent.agent_uuid}/channels`, { type: 'sms', name: 'SMS line', config: { connection_uuid: connection.uuid } }, [200, 201]);
  const channel = ((added.channels ?? [added]) as Array<{ type: string; uuid: string }>).find((c) => c.type === 'sms');
  if (!channel) throw new Error(`seeding: the agent's channels have no sms channel: ${JSON.stringify(added).slice(0, 300)}`);
  return { agentUuid: agent.agent_uuid, channelUuid: channel.uuid };
}

benchMain(main);
