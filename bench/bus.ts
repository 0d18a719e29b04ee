/**
 * bench/bus: publish-to-handled throughput and commit-to-handler latency of the
 * bus (outbox -> relay -> RabbitMQ -> consumer with its inbox), side by side with
 * raw amqplib publishing and consuming the same payloads, in the same run.
 *
 *   node -r ./bin/register-ts.js bench/bus.ts      (npm run bench:bus)
 *
 * Processes (all children of this one, which only drives them and reads results):
 *   bus-publisher  a kernel in role `serve` with bench/plugins/bus-bench: publisher
 *                  loops commit transactions that each publish 1 (or BENCH_BATCH)
 *                  messages through `bus.publish`; its relay moves them to RabbitMQ.
 *   bus-worker     a kernel in role `worker` with the same plugin: the consumer (its
 *                  handler only notes the latency; the inbox insert commits with it)
 *                  and a second relay, as in a serve + worker deployment.
 *   floor-publisher, floor-consumer  the floor: the same SQL statements (the kernel's own
 *                  texts, on copies of its tables) and AMQP traffic as the bus, from bare
 *                  loops on plain pg clients: 8 publishing transactions (BEGIN, outbox INSERT,
 *                  COMMIT), a relay (claim-and-delete, publish, confirms), a consumer (one
 *                  inbox transaction per batch of waiting messages, two batches at once of
 *                  up to 32 as the kernel batches quick handlers, then acks). The same
 *                  durability with no kernel: the most this design can do on this machine.
 *   raw-publisher  amqplib: a confirm channel publishing persistent messages to a
 *                  durable topic exchange bound to a durable quorum queue, at most
 *                  BUS_RELAY_BATCH_SIZE (the relay's batch) unconfirmed at a time.
 *   raw-consumer   amqplib: manual ack, the prefetch the kernel's consumer has once its
 *                  handlers are known to be quick (prefetchFor in core/bus/consumer-batches.ts:
 *                  64 for BENCH_CONCURRENCY up to 32, twice the concurrency above).
 * Each side has a publishing and a consuming process, as a production deployment
 * would (web processes publish, workers consume), so both can use both CPUs.
 *
 * A run: N messages with ~200-byte JSON payloads, each carrying the wall-clock time
 * it was written (`committedAt`, taken just before the outbox INSERT of a transaction
 * whose last statements are that INSERT and the COMMIT; for raw, just before
 * `channel.publish`). The consumer reports `handledAt - committedAt` and `handledAt`
 * to this process over IPC, in batches every 100 ms. Throughput = N / (last handled
 * - first publish). First every variant runs at saturation (publishers as fast as
 * they can) for BENCH_ROUNDS rounds; then each runs paced at half its own median
 * saturated throughput for its latency percentiles.
 *
 * Where the time goes, per run: CPU time, write/read system calls and context
 * switches per message of each process (the two children of the side measured, all
 * postgres and beam.smp processes, from /proc), and in the kernels the relay's claim,
 * send (publish + confirm) and delete times and batch sizes and the deliveries' batches and time (by
 * wrapping methods of the bus objects in the bench children; the kernel is unchanged).
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default postgresql://postgres@127.0.0.1:5432/postgres)
 *   AMQP_URL            RabbitMQ (default amqp://guest:guest@127.0.0.1:5672)
 *   BENCH_MESSAGES      messages per saturation run (default 20000)
 *   BENCH_WARMUP_MESSAGES  messages per variant before the rounds (default 3000)
 *   BENCH_ROUNDS        rounds; each runs every variant once at saturation and once paced (default 3)
 *   BENCH_PACED_SECONDS length of a paced run (default 10)
 *   BENCH_PUBLISHERS    concurrent publishing transactions on the bus side (default 8)
 *   BENCH_BATCH         messages per transaction of the batched variant (default 10)
 *   BENCH_CONCURRENCY   consumer concurrency (default 8); the prefetch follows from it, the same on both sides
 *   BENCH_VARIANTS      comma-separated subset of bus-1, bus-batch, floor, raw (default all)
 *   BENCH_KERNEL_CONFIG JSON object of extra kernel config overrides (experiments), e.g. '{"busRelayBatchSize":100}'
 *   BENCH_NODE_OPTIONS  extra node flags for every child; BENCH_NODE_OPTIONS_BUS_PUBLISHER,
 *                       _BUS_WORKER, _RAW_PUBLISHER, _RAW_CONSUMER for one of them
 *   BENCH_SETTLE_MS     pause between runs once everything is drained (default 1000)
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 *   BENCH_WAIT_FOR_OTHERS=0  do not wait for other work (bench/*.ts, jest runs) before each run, nor repeat a
 *                       run during which more than 12% of the CPUs went to processes the bench does not measure
 */
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchPayload } from './plugins/bus-bench';
import { fmt, median, numberEnv, percentile, round3 } from './lib/bench-stats';
import { SERVER_NODE_FLAGS } from './lib/server-node-flags';
import type { RegisteredConsumer } from '../core/bus/bus-types';
import { prefetchFor } from '../core/bus/consumer-batches';

/** The prefetch of the kernel's consumer of this concurrency once its handlers are known to be quick (the bench's are). */
const quickPrefetch = (concurrency: number) => prefetchFor({ concurrency } as RegisteredConsumer, true);

const ROOT = path.resolve(__dirname, '..');
const REGISTER_TS = path.join(ROOT, 'bin', 'register-ts.js');
const PLUGIN_DIR = path.join(__dirname, 'plugins', 'bus-bench');
const RESULTS_FILE = path.join(__dirname, 'results', 'bus.json');
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
const TOPIC = 'bench.event';

/** The goals of the issue, judged on the bus with one message per transaction (see report()). */
const GOALS = { minThroughputRatio: 0.4, maxP99Ms: 50 };

type Variant = 'bus-1' | 'bus-batch' | 'floor' | 'raw';
const ALL_VARIANTS: Variant[] = ['bus-1', 'bus-batch', 'floor', 'raw'];
type Role = 'bus-publisher' | 'bus-worker' | 'floor-publisher' | 'floor-consumer' | 'raw-publisher' | 'raw-consumer';
/** The publishing and the consuming process of each variant. */
const SIDES: Record<Variant, { publisher: Role; consumer: Role }> = {
  'bus-1': { publisher: 'bus-publisher', consumer: 'bus-worker' },
  'bus-batch': { publisher: 'bus-publisher', consumer: 'bus-worker' },
  floor: { publisher: 'floor-publisher', consumer: 'floor-consumer' },
  raw: { publisher: 'raw-publisher', consumer: 'raw-consumer' },
};
/** Variants that run the kernel (relay and delivery figures come from it). */
const onKernel = (variant: Variant) => variant === 'bus-1' || variant === 'bus-batch';

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across this machine's processes. */
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

// ---------------------------------------------------------------------------------------------
// The payload both sides send: about 200 bytes of JSON.
// ---------------------------------------------------------------------------------------------

const NOTE = 'Customer asked to ship the order with the next pickup';

function makePayload(run: string, seq: number): BenchPayload {
  return {
    run,
    seq,
    committedAt: now(),
    type: 'order.created',
    order: { id: `ord_${String(seq).padStart(9, '0')}`, amount: 4999 + (seq % 1000), currency: 'EUR', items: 1 + (seq % 5) },
    note: NOTE,
  };
}

// ---------------------------------------------------------------------------------------------
// IPC between this process and its children.
// ---------------------------------------------------------------------------------------------

interface PublishCommand {
  run: string;
  count: number;
  /** Messages per transaction (bus); 1 for raw. */
  perTx: number;
  /** Concurrent publishing transactions (bus). */
  concurrency: number;
  /** Messages per second; 0 = as fast as possible. */
  rate: number;
}

interface PublishResult {
  run: string;
  startedAt: number;
  endedAt: number;
  transactions: number;
  /** Bus: from the first payload's committedAt to the commit's return, per transaction. Raw: publish call to confirm, per message. */
  commitMs: { p50: number; p99: number; max: number };
  /** Paced runs: how far behind its schedule the publisher fell at worst (ms). */
  lagMaxMs: number;
  errors: number;
}

type Handled = Record<string, { seq: number[]; latency: number[]; at: number[] }>;

type ChildMessage =
  | { type: 'ready'; info: Record<string, unknown> }
  | { type: 'error'; error: string }
  | { type: 'reply'; id: number; data?: any; error?: string }
  | { type: 'handled'; batches: Handled };

type ParentMessage = { type: 'request'; id: number; op: 'publish'; command: PublishCommand } | { type: 'request'; id: number; op: 'stats' } | { type: 'stop' };

class Child {
  readonly ready: Promise<Record<string, unknown>>;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (data: any) => void; reject: (error: Error) => void }>();
  exited = false;

  constructor(
    readonly role: Role,
    readonly child: ChildProcess,
    onHandled: (batches: Handled) => void,
  ) {
    this.ready = new Promise((resolve, reject) => {
      child.once('exit', (code, signal) => {
        this.exited = true;
        const error = new Error(`the ${role} process exited (${signal ?? code})`);
        reject(error);
        for (const { reject: rejectPending } of this.pending.values()) rejectPending(error);
        this.pending.clear();
      });
      child.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') resolve(message.info);
        else if (message.type === 'error') reject(new Error(`the ${role} process failed: ${message.error}`));
        else if (message.type === 'handled') onHandled(message.batches);
        else if (message.type === 'reply') {
          const pending = this.pending.get(message.id);
          this.pending.delete(message.id);
          if (message.error !== undefined) pending?.reject(new Error(`the ${role} process failed: ${message.error}`));
          else pending?.resolve(message.data);
        }
      });
    });
    this.ready.catch(() => {});
  }

  get pid(): number {
    return this.child.pid!;
  }

  request<T>(op: 'publish', command: PublishCommand): Promise<T>;
  request<T>(op: 'stats'): Promise<T>;
  request<T>(op: 'publish' | 'stats', command?: PublishCommand): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.exited) return reject(new Error(`the ${this.role} process is gone`));
      this.pending.set(id, { resolve, reject });
      this.child.send({ type: 'request', id, op, command } as ParentMessage);
    });
  }

  stop(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.send({ type: 'stop' } as ParentMessage);
    });
  }
}

function spawnChild(role: Role, env: Record<string, string>, onHandled: (batches: Handled) => void): Child {
  const flags = `${process.env.BENCH_NODE_OPTIONS ?? ''} ${process.env[`BENCH_NODE_OPTIONS_${role.toUpperCase().replace('-', '_')}`] ?? ''}`.split(/\s+/).filter(Boolean);
  const child = fork(__filename, [role], {
    // Switchboard's processes run with the Node.js flags a deployed server has; the raw amqplib side too, so the code is the difference.
    execArgv: ['-r', REGISTER_TS, ...SERVER_NODE_FLAGS, ...flags],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Child(role, child, onHandled);
}

// ---------------------------------------------------------------------------------------------
// The parent.
// ---------------------------------------------------------------------------------------------

interface Settings {
  messages: number;
  warmupMessages: number;
  rounds: number;
  pacedSeconds: number;
  publishers: number;
  batch: number;
  concurrency: number;
  settleMs: number;
  variants: Variant[];
}

/** CPU time (ms) a component spent during a run, and per message. */
type CpuBreakdown = Record<string, { ms: number; usPerMessage: number; writesPerMessage: number; readsPerMessage: number; switchesPerMessage: number }>;

interface RelayStats {
  claims: number;
  emptyClaims: number;
  claimed: number;
  claimMs: number;
  sends: number;
  /** transport.send: publish + waitForConfirms (older kernels: + the outbox DELETE; now it rides on the next claim). */
  sendMs: number;
  /** Rows marked delivered (deleted by the next claim, or by a flush). */
  completed: number;
  /** Separate DELETE statements (flushes) and their time. */
  completes: number;
  completeMs: number;
  nextDueQueries: number;
  nextDueMs: number;
  /** Messages delivered to the consumer, in `batches` inbox transactions of `deliverMs` in all. */
  deliveries: number;
  batches: number;
  deliverMs: number;
  outcomes: Record<string, number>;
  maxBatch: number;
}

interface RunResult {
  variant: Variant;
  mode: 'saturation' | 'paced' | 'warmup';
  round: number;
  messages: number;
  perTransaction: number;
  transactions: number;
  targetRate: number;
  /** Messages per second, first publish to last handled. */
  throughput: number;
  /** Messages per second the publishers committed (or the raw publisher got confirmed). */
  publishRate: number;
  seconds: number;
  latency: { p50: number; p90: number; p99: number; max: number; average: number };
  commitMs: PublishResult['commitMs'];
  lagMaxMs: number;
  handled: number;
  duplicates: number;
  publishErrors: number;
  cpu: CpuBreakdown;
  /** Busy share of all the machine's CPUs during the run (1 = every core busy all the time). */
  machineBusy: number;
  /** Share of all the machine's CPUs busy in processes the bench does not measure (other work; a few % is the system itself). */
  otherCpu: number;
  /** Bus only: relay and delivery figures of each kernel process during the run. */
  relay?: { publisher: RelayStats; worker: RelayStats };
  /** Other work was seen during the run, three times in a row (each time the run was repeated). */
  disturbed?: boolean;
}

class Collector {
  count = 0;
  duplicates = 0;
  lastAt = 0;
  lastProgress = now();
  readonly latencies: number[] = [];
  private readonly seen: Uint8Array;

  constructor(readonly expected: number) {
    this.seen = new Uint8Array(expected);
  }

  add(batch: { seq: number[]; latency: number[]; at: number[] }): void {
    for (let i = 0; i < batch.seq.length; i++) {
      const seq = batch.seq[i];
      if (this.seen[seq]) {
        this.duplicates++;
        continue;
      }
      this.seen[seq] = 1;
      this.count++;
      this.latencies.push(batch.latency[i]);
      if (batch.at[i] > this.lastAt) this.lastAt = batch.at[i];
    }
    this.lastProgress = now();
  }
}

async function main(): Promise<void> {
  const settings: Settings = {
    messages: numberEnv('BENCH_MESSAGES', 20_000),
    warmupMessages: numberEnv('BENCH_WARMUP_MESSAGES', 3_000),
    rounds: Math.max(1, numberEnv('BENCH_ROUNDS', 3)),
    pacedSeconds: numberEnv('BENCH_PACED_SECONDS', 10),
    publishers: Math.max(1, numberEnv('BENCH_PUBLISHERS', 8)),
    batch: Math.max(1, numberEnv('BENCH_BATCH', 10)),
    concurrency: Math.max(1, numberEnv('BENCH_CONCURRENCY', 8)),
    settleMs: numberEnv('BENCH_SETTLE_MS', 1000),
    variants: (process.env.BENCH_VARIANTS ? process.env.BENCH_VARIANTS.split(',').map((v) => v.trim()) : ALL_VARIANTS) as Variant[],
  };
  for (const variant of settings.variants) if (!ALL_VARIANTS.includes(variant)) throw new Error(`unknown variant "${variant}" in BENCH_VARIANTS`);
  if (!process.env.TEST_DATABASE_URL && !process.env.DATABASE_URL) process.env.DATABASE_URL = DEFAULT_DATABASE_URL;
  const amqpUrl = process.env.AMQP_URL || DEFAULT_AMQP_URL;
  const namespace = `bench-bus-${crypto.randomBytes(4).toString('hex')}`;
  // The floor's tables are copies of the bus's, so the kernel migrates the database for it too.
  const hasBus = settings.variants.some((v) => v !== 'raw');
  const hasFloor = settings.variants.includes('floor');
  const hasRaw = settings.variants.includes('raw');

  await waitForOtherBenchmarks();
  const { createTestDatabase } = require('../core/testing/test-database') as typeof import('../core/testing/test-database');
  const database = await createTestDatabase();
  const { Client } = require('pg') as typeof import('pg');
  let db: import('pg').Client | undefined;
  const collectors = new Map<string, Collector>();
  const onHandled = (batches: Handled) => {
    for (const [run, batch] of Object.entries(batches)) collectors.get(run)?.add(batch);
  };
  const children: Partial<Record<Role, Child>> = {};
  const childEnv = { BENCH_DATABASE_URL: database.url, BENCH_AMQP_URL: amqpUrl, BENCH_NAMESPACE: namespace, BENCH_CONCURRENCY: String(settings.concurrency) };
  let kernelInfo: Record<string, any> = {};
  try {
    // The publisher kernel migrates the fresh database before the worker boots.
    if (hasBus) {
      children['bus-publisher'] = spawnChild('bus-publisher', childEnv, onHandled);
      kernelInfo = await children['bus-publisher'].ready;
      children['bus-worker'] = spawnChild('bus-worker', childEnv, onHandled);
      await children['bus-worker'].ready;
    }
    const relayBatchSize: number = kernelInfo.relayBatchSize ?? (await defaultRelayBatchSize());
    if (hasFloor) {
      children['floor-publisher'] = spawnChild('floor-publisher', { ...childEnv, BENCH_WINDOW: String(relayBatchSize) }, onHandled);
      await children['floor-publisher'].ready;
      children['floor-consumer'] = spawnChild('floor-consumer', childEnv, onHandled);
      await children['floor-consumer'].ready;
    }
    if (hasRaw) {
      children['raw-publisher'] = spawnChild('raw-publisher', { ...childEnv, BENCH_WINDOW: String(relayBatchSize) }, onHandled);
      await children['raw-publisher'].ready;
      children['raw-consumer'] = spawnChild('raw-consumer', childEnv, onHandled);
      await children['raw-consumer'].ready;
    }
    db = new Client({ connectionString: database.url });
    await db.connect();
    const broker = await brokerInfo(amqpUrl);

    const sample = JSON.stringify(makePayload('r1-bus-1', 12345));
    console.log(
      `bus: ${settings.messages} messages per saturation run, ${settings.rounds} rounds, paced runs of ${settings.pacedSeconds}s at half each side's max; ` +
        `payload ${Buffer.byteLength(sample)} bytes JSON; bus publishers ${settings.publishers} concurrent transactions (1 or ${settings.batch} messages each), ` +
        `relay batch ${relayBatchSize}, DB pool ${kernelInfo.poolMax ?? '?'} per kernel; consumers: concurrency ${settings.concurrency}, prefetch ${quickPrefetch(settings.concurrency)} (bus: ${settings.concurrency * 2} until its handlers are known to be quick); ` +
        `raw: confirm window ${relayBatchSize}, persistent, quorum queue (${os.cpus().length} CPUs, node ${process.version}, RabbitMQ ${broker.version}, PostgreSQL ${await pgVersion(db)})`,
    );

    const queues = {
      bus: `${namespace}.bus-bench.sink`,
      raw: `${namespace}-raw.sink`,
      floor: `${namespace}-floor.sink`,
    };
    const outboxes = [...(hasBus ? ['bus_outbox'] : []), ...(hasFloor ? [`${FLOOR_SCHEMA}.bus_outbox`] : [])];
    const runOnce = async (variant: Variant, mode: RunResult['mode'], round: number, count: number, rate: number): Promise<RunResult> => {
      for (let attempt = 1; ; attempt++) {
        await waitForOtherBenchmarks();
        await quiesce(db!, amqpUrl, queues, outboxes);
        await sleep(settings.settleMs);
        const result = await measure(variant, mode, round, count, rate);
        const others = otherBenchmarks();
        // Work outside the bench (a test run) that came and went during the run shows as CPU time no measured process spent.
        const busyElsewhere = process.env.BENCH_WAIT_FOR_OTHERS !== '0' && result.otherCpu > MAX_OTHER_CPU;
        if ((others.length === 0 && !busyElsewhere) || mode === 'warmup' || attempt === 3) {
          if ((others.length > 0 || busyElsewhere) && mode !== 'warmup') result.disturbed = true;
          return result;
        }
        console.log(
          others.length > 0
            ? `  (other work started during the run: ${others[0].slice(0, 160)}; repeating it)`
            : `  (${fmt(result.otherCpu * 100, 0)}% of the CPUs went to processes outside the bench during the run; repeating it)`,
        );
      }
    };
    const measure = async (variant: Variant, mode: RunResult['mode'], round: number, count: number, rate: number): Promise<RunResult> => {
      const run = `r${round}-${mode}-${variant}-${crypto.randomBytes(3).toString('hex')}`;
      const collector = new Collector(count);
      collectors.set(run, collector);
      const bus = onKernel(variant);
      const publisher = children[SIDES[variant].publisher]!;
      const consumer = children[SIDES[variant].consumer]!;
      const perTx = variant === 'bus-batch' ? settings.batch : 1;
      const relayBefore = bus ? await Promise.all([publisher.request<RelayStats>('stats'), consumer.request<RelayStats>('stats')]) : undefined;
      const cpuBefore = cpuSnapshot({ publisher: [publisher.pid], consumer: [consumer.pid] });
      const machineBefore = machineCpu();
      const published = await publisher.request<PublishResult>('publish', { run, count, perTx, concurrency: variant === 'raw' ? 1 : settings.publishers, rate });
      // Everything published; wait until everything is handled.
      const publishedAt = now();
      while (collector.count < count) {
        if (now() - Math.max(collector.lastProgress, publishedAt) > 30_000) {
          throw new Error(`${variant} ${mode} run stalled: ${collector.count} of ${count} messages handled after 30 s without progress`);
        }
        await sleep(20);
      }
      const cpuAfter = cpuSnapshot({ publisher: [publisher.pid], consumer: [consumer.pid] });
      const machineAfter = machineCpu();
      const relayAfter = bus ? await Promise.all([publisher.request<RelayStats>('stats'), consumer.request<RelayStats>('stats')]) : undefined;
      collectors.delete(run);

      const seconds = (collector.lastAt - published.startedAt) / 1000;
      const sorted = Float64Array.from(collector.latencies).sort();
      const cpu: CpuBreakdown = {};
      for (const name of Object.keys(cpuAfter)) {
        const before = cpuBefore[name] ?? ZERO;
        const after = cpuAfter[name];
        const ms = after.cpu - before.cpu;
        cpu[name] = {
          ms: Math.round(ms),
          usPerMessage: round3((ms * 1000) / count),
          writesPerMessage: round3((after.writes - before.writes) / count),
          readsPerMessage: round3((after.reads - before.reads) / count),
          switchesPerMessage: round3((after.switches - before.switches) / count),
        };
      }
      const busy = machineAfter.busy - machineBefore.busy;
      const total = machineAfter.total - machineBefore.total;
      const measuredMs = Object.values(cpu).reduce((sum, c) => sum + (Number.isFinite(c.ms) ? c.ms : 0), 0);
      return {
        variant,
        mode,
        round,
        messages: count,
        perTransaction: perTx,
        transactions: published.transactions,
        targetRate: rate,
        throughput: round3(count / seconds),
        publishRate: round3(count / ((published.endedAt - published.startedAt) / 1000)),
        seconds: round3(seconds),
        latency: {
          p50: round3(percentile(sorted, 50)),
          p90: round3(percentile(sorted, 90)),
          p99: round3(percentile(sorted, 99)),
          max: round3(sorted[sorted.length - 1]),
          average: round3(sorted.reduce((sum, v) => sum + v, 0) / sorted.length),
        },
        commitMs: published.commitMs,
        lagMaxMs: published.lagMaxMs,
        handled: collector.count,
        duplicates: collector.duplicates,
        publishErrors: published.errors,
        cpu,
        machineBusy: round3(total > 0 ? busy / total : NaN),
        otherCpu: round3(total > 0 ? Math.max(0, busy * CLOCK_TICK_MS - measuredMs) / (total * CLOCK_TICK_MS) : NaN),
        relay: relayBefore && relayAfter ? { publisher: diffStats(relayAfter[0], relayBefore[0]), worker: diffStats(relayAfter[1], relayBefore[1]) } : undefined,
      };
    };

    const label: Record<Variant, string> = {
      'bus-1': 'bus, 1 msg/tx',
      'bus-batch': `bus, ${settings.batch} msgs/tx`,
      floor: 'floor (bare loops)',
      raw: 'raw amqplib',
    };
    const printRun = (r: RunResult) =>
      console.log(
        `  ${r.mode === 'paced' ? 'paced' : 'round'} ${r.round} ${label[r.variant].padEnd(16)} ${fmt(r.throughput, 0).padStart(6)} msg/s` +
          (r.mode === 'paced' ? ` (target ${fmt(r.targetRate, 0)})` : '') +
          `  commit->handler p50 ${fmt(r.latency.p50)} p99 ${fmt(r.latency.p99)} max ${fmt(r.latency.max)} ms  ` +
          `publish ${fmt(r.publishRate, 0)} msg/s  CPU ${fmt(r.machineBusy * 100, 0)}% of ${os.cpus().length}  ` +
          `(${r.handled} handled, ${r.duplicates} dup, ${r.seconds.toFixed(2)} s, other work ${fmt(r.otherCpu * 100, 0)}% CPU${r.lagMaxMs > 5 ? `, publisher ${fmt(r.lagMaxMs, 0)} ms behind at worst` : ''}${r.disturbed ? ', DISTURBED' : ''})`,
      );

    if (settings.warmupMessages > 0) {
      for (const variant of settings.variants) await runOnce(variant, 'warmup', 0, settings.warmupMessages, 0);
      console.log(`warm-up done (${settings.warmupMessages} messages per variant)`);
    }
    const runs: RunResult[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const order = round % 2 === 1 ? settings.variants : [...settings.variants].reverse();
      for (const variant of order) {
        const result = await runOnce(variant, 'saturation', round, settings.messages, 0);
        runs.push(result);
        printRun(result);
      }
    }
    const maxRate = Object.fromEntries(settings.variants.map((v) => [v, median(runs.filter((r) => r.variant === v).map((r) => r.throughput))])) as Record<Variant, number>;
    for (let round = 1; round <= settings.rounds; round++) {
      const order = round % 2 === 1 ? settings.variants : [...settings.variants].reverse();
      for (const variant of order) {
        const rate = Math.max(1, Math.round(maxRate[variant] / 2));
        const count = Math.max(500, Math.round(rate * settings.pacedSeconds));
        const result = await runOnce(variant, 'paced', round, count, rate);
        runs.push(result);
        printRun(result);
      }
    }

    report(settings, label, runs, maxRate, { relayBatchSize, poolMax: kernelInfo.poolMax, broker: broker.version });
    const bad = runs.filter((r) => r.duplicates > 0 || r.publishErrors > 0 || r.handled !== r.messages);
    if (bad.length > 0) process.exitCode = 1;
  } finally {
    await db?.end().catch(() => {});
    await Promise.all(Object.values(children).map((child) => child!.stop()));
    await removeBrokerTopology(amqpUrl, namespace).catch((error) => console.error('removing the bench queues failed:', error));
    await database.drop().catch((error) => console.error('dropping the bench database failed:', error));
    const { stopEmbedded } = require('../core/testing/test-database') as typeof import('../core/testing/test-database');
    await stopEmbedded?.().catch(() => {});
  }
}

function report(settings: Settings, label: Record<Variant, string>, runs: RunResult[], maxRate: Record<Variant, number>, context: Record<string, unknown>): void {
  const summary = (variant: Variant) => {
    const sat = runs.filter((r) => r.variant === variant && r.mode === 'saturation');
    const paced = runs.filter((r) => r.variant === variant && r.mode === 'paced');
    if (sat.length === 0) return undefined;
    const cpuNames = Object.keys(sat[0].cpu);
    return {
      throughput: median(sat.map((r) => r.throughput)),
      publishRate: median(sat.map((r) => r.publishRate)),
      saturatedLatencyP99: median(sat.map((r) => r.latency.p99)),
      pacedRate: median(paced.map((r) => r.targetRate)),
      pacedThroughput: median(paced.map((r) => r.throughput)),
      latencyP50: median(paced.map((r) => r.latency.p50)),
      latencyP99: median(paced.map((r) => r.latency.p99)),
      latencyMax: median(paced.map((r) => r.latency.max)),
      commitMsP50: median(sat.map((r) => r.commitMs.p50)),
      pacedCommitMsP50: median(paced.map((r) => r.commitMs.p50)),
      cpuUsPerMessage: Object.fromEntries(cpuNames.map((name) => [name, round3(median(sat.map((r) => r.cpu[name]?.usPerMessage ?? NaN)))])),
      /** write system calls / read system calls / context switches per message, by process. */
      syscallsPerMessage: Object.fromEntries(
        cpuNames
          .filter((name) => name !== 'parent')
          .map((name) => [
            name,
            {
              writes: round3(median(sat.map((r) => r.cpu[name]?.writesPerMessage ?? NaN))),
              reads: round3(median(sat.map((r) => r.cpu[name]?.readsPerMessage ?? NaN))),
              switches: round3(median(sat.map((r) => r.cpu[name]?.switchesPerMessage ?? NaN))),
            },
          ]),
      ),
      machineBusy: median(sat.map((r) => r.machineBusy)),
    };
  };
  const results = Object.fromEntries(settings.variants.map((v) => [v, summary(v)])) as Partial<Record<Variant, ReturnType<typeof summary>>>;
  const bus1 = results['bus-1'];
  const batch = results['bus-batch'];
  const floor = results.floor;
  const raw = results.raw;
  const ratio = (x?: { throughput: number }) => (x && raw ? x.throughput / raw.throughput : NaN);

  console.log('');
  console.log(`median of ${settings.rounds} runs per variant   saturated          | paced at half its max: commit->handler`);
  console.log(`                               msg/s  vs raw  p99 ms  |   rate msg/s   p50 ms   p99 ms   max ms`);
  for (const variant of settings.variants) {
    const s = results[variant]!;
    console.log(
      `  ${label[variant].padEnd(26)}${fmt(s.throughput, 0).padStart(8)}  ${variant === 'raw' ? '     -' : `${fmt(ratio(s) * 100, 1).padStart(5)}%`}  ${fmt(s.saturatedLatencyP99, 0).padStart(6)}  |` +
        `  ${fmt(s.pacedRate, 0).padStart(11)}  ${fmt(s.latencyP50).padStart(7)}  ${fmt(s.latencyP99).padStart(7)}  ${fmt(s.latencyMax).padStart(7)}`,
    );
  }
  console.log('');
  console.log('CPU per message at saturation (median, us), by process:');
  for (const variant of settings.variants) {
    const s = results[variant]!;
    const parts = Object.entries(s.cpuUsPerMessage).map(([name, us]) => `${name} ${fmt(us, 0)}`);
    const total = Object.values(s.cpuUsPerMessage).filter((name) => Number.isFinite(name)).reduce((a, b) => a + b, 0);
    console.log(`  ${label[variant].padEnd(26)}${parts.join(', ')}  = ${fmt(total, 0)} us; machine ${fmt(s.machineBusy * 100, 0)}% busy`);
  }
  console.log('per message at saturation (median): write syscalls / read syscalls / context switches, by process:');
  for (const variant of settings.variants) {
    const s = results[variant]!;
    // PostgreSQL and RabbitMQ use send/recv on sockets, which /proc/<pid>/io does not count: only their context switches mean something.
    const parts = Object.entries(s.syscallsPerMessage).map(([name, c]) =>
      name === 'postgres' || name === 'rabbitmq' ? `${name} -/-/${fmt(c.switches, 1)}` : `${name} ${fmt(c.writes, 1)}/${fmt(c.reads, 1)}/${fmt(c.switches, 1)}`,
    );
    console.log(`  ${label[variant].padEnd(26)}${parts.join(', ')}`);
  }
  for (const variant of settings.variants.filter((v) => v !== 'raw')) {
    const sat = runs.filter((r) => r.variant === variant && r.mode === 'saturation' && r.relay);
    if (sat.length === 0) continue;
    const pick = sat[Math.floor(sat.length / 2)];
    const describe = (name: string, s: RelayStats) =>
      `${name}: ${s.claims} claims (${s.emptyClaims} empty) of ${fmt(s.claimed / Math.max(1, s.claims - s.emptyClaims), 0)} rows avg, max ${s.maxBatch}, ` +
      `claim ${fmt(s.claimMs / Math.max(1, s.claims))} ms, send ${fmt(s.sendMs / Math.max(1, s.sends))} ms, ` +
      `${s.completes} separate deletes of ${fmt(s.completeMs / Math.max(1, s.completes))} ms` +
      (s.deliveries ? `; ${s.deliveries} deliveries in ${s.batches} batches (${fmt(s.deliveries / Math.max(1, s.batches), 1)} avg) of ${fmt(s.deliverMs / Math.max(1, s.batches))} ms avg` : '');
    console.log(`relay, ${label[variant]}, round ${pick.round}: ${describe('publisher', pick.relay!.publisher)}; ${describe('worker', pick.relay!.worker)}`);
  }
  if (settings.variants.some((v) => v !== 'raw')) {
    console.log(
      `publisher commit time (first publish to COMMIT returned; included in commit->handler), p50: ${settings.variants
        .filter((v) => v !== 'raw')
        .map((v) => `${label[v]} ${fmt(results[v]!.commitMsP50)} ms saturated, ${fmt(results[v]!.pacedCommitMsP50)} ms paced`)
        .join('; ')}`,
    );
  }

  const goals = {
    judgedOn: 'bus-1',
    throughput: { goal: `>= ${GOALS.minThroughputRatio * 100}% of raw`, ratio: round3(ratio(bus1)), met: ratio(bus1) >= GOALS.minThroughputRatio },
    p99: { goal: `< ${GOALS.maxP99Ms} ms at half the max rate`, p99Ms: round3(bus1?.latencyP99 ?? NaN), met: (bus1?.latencyP99 ?? Infinity) < GOALS.maxP99Ms },
    batched: batch
      ? { throughputRatio: round3(ratio(batch)), throughputMet: ratio(batch) >= GOALS.minThroughputRatio, p99Ms: round3(batch.latencyP99), p99Met: batch.latencyP99 < GOALS.maxP99Ms }
      : undefined,
    floor: floor ? { throughputRatio: round3(ratio(floor)), busShare: round3(bus1 ? bus1.throughput / floor.throughput : NaN) } : undefined,
  };
  console.log('');
  if (bus1) {
    console.log(`  goal, judged on 1 message per transaction (what a write request publishes):`);
    console.log(`    throughput ${fmt(goals.throughput.ratio * 100, 1)}% of raw amqplib (goal >= ${GOALS.minThroughputRatio * 100}%): ${goals.throughput.met ? 'MET' : 'MISSED'}`);
    console.log(`    p99 commit->handler at half the max rate ${fmt(goals.p99.p99Ms)} ms (goal < ${GOALS.maxP99Ms} ms): ${goals.p99.met ? 'MET' : 'MISSED'}`);
  }
  if (goals.batched) {
    console.log(
      `  for comparison, ${settings.batch} per transaction: throughput ${fmt(goals.batched.throughputRatio * 100, 1)}% of raw (${goals.batched.throughputMet ? 'would meet' : 'would miss'}), ` +
        `p99 ${fmt(goals.batched.p99Ms)} ms (${goals.batched.p99Met ? 'would meet' : 'would miss'})`,
    );
  }
  if (goals.floor) {
    console.log(
      `  the floor (the bus's statements and AMQP traffic from bare loops, no kernel): ${fmt(goals.floor.throughputRatio * 100, 1)}% of raw, ` +
        `the most this design reaches on this machine${bus1 ? `; the bus runs at ${fmt(goals.floor.busShare * 100, 1)}% of the floor` : ''}`,
    );
  }
  const invalid = runs.filter((r) => r.duplicates > 0 || r.publishErrors > 0 || r.handled !== r.messages);
  const disturbed = runs.filter((r) => r.disturbed);
  if (invalid.length > 0) console.log(`  WARNING: ${invalid.length} run(s) had duplicates, lost messages or publish errors; the figures are not valid`);
  if (disturbed.length > 0) console.log(`  WARNING: ${disturbed.length} run(s) overlapped other work (another benchmark, a test run) three times in a row`);

  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  fs.writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        bench: 'bus',
        date: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        settings: { ...settings, ...context },
        results,
        maxRate,
        goals,
        valid: invalid.length === 0,
        runs,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`  results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  if (process.env.BENCH_ENFORCE === '1' && !(goals.throughput.met && goals.p99.met)) process.exitCode = 1;
}

function diffStats(after: RelayStats, before: RelayStats): RelayStats {
  const out: any = {};
  for (const [key, value] of Object.entries(after)) {
    if (key === 'outcomes') {
      out.outcomes = Object.fromEntries(Object.entries(value as Record<string, number>).map(([k, v]) => [k, v - ((before.outcomes as any)[k] ?? 0)]));
    } else if (key === 'maxBatch') out.maxBatch = value;
    else out[key] = typeof value === 'number' ? round3(value - (before as any)[key]) : value;
  }
  return out;
}

/** Waits until the outbox and both queues are empty (every message of the last run is acknowledged). */
async function quiesce(db: import('pg').Client, amqpUrl: string, queues: Record<string, string>, outboxes: string[]): Promise<void> {
  const amqp = require('amqplib') as typeof import('amqplib');
  const connection = await amqp.connect(amqpUrl);
  try {
    const deadline = now() + 60_000;
    for (;;) {
      let outbox = 0;
      for (const table of outboxes) outbox += Number((await db.query(`select count(*)::int as n from ${table}`)).rows[0].n);
      let depth = 0;
      for (const queue of Object.values(queues)) {
        const channel = await connection.createChannel();
        channel.on('error', () => {});
        try {
          depth += (await channel.checkQueue(queue)).messageCount;
          await channel.close();
        } catch {
          /* not declared in this run (a variant left out) */
        }
      }
      if (outbox === 0 && depth === 0) return;
      if (now() > deadline) throw new Error(`not drained after 60 s: ${outbox} rows in the outbox, ${depth} messages in the queues`);
      await sleep(100);
    }
  } finally {
    await connection.close().catch(() => {});
  }
}

async function removeBrokerTopology(amqpUrl: string, namespace: string): Promise<void> {
  const amqp = require('amqplib') as typeof import('amqplib');
  const { topology } = require('../core/bus/transports/amqp-transport') as typeof import('../core/bus/transports/amqp-transport');
  const names = topology(namespace);
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(names.queue('bus-bench.sink'));
    await channel.deleteExchange(names.exchange);
    await channel.deleteQueue(`${namespace}-raw.sink`);
    await channel.deleteExchange(`${namespace}-raw`);
    await channel.deleteQueue(`${namespace}-floor.sink`);
    await channel.deleteExchange(`${namespace}-floor`);
    await channel.close();
  } finally {
    await connection.close();
  }
}

async function brokerInfo(amqpUrl: string): Promise<{ version: string }> {
  const amqp = require('amqplib') as typeof import('amqplib');
  const connection: any = await amqp.connect(amqpUrl);
  try {
    return { version: String(connection.connection?.serverProperties?.version ?? '?') };
  } finally {
    await connection.close();
  }
}

async function pgVersion(db: import('pg').Client): Promise<string> {
  return (await db.query('show server_version')).rows[0].server_version.split(' ')[0];
}

async function defaultRelayBatchSize(): Promise<number> {
  const overrides = process.env.BENCH_KERNEL_CONFIG ? JSON.parse(process.env.BENCH_KERNEL_CONFIG) : {};
  if (overrides.busRelayBatchSize) return Number(overrides.busRelayBatchSize);
  const { coreConfigSchema } = require('../core/config/config-schema') as typeof import('../core/config/config-schema');
  return coreConfigSchema.busRelayBatchSize.default;
}

// ---------------------------------------------------------------------------------------------
// Other benchmarks and test runs: they would share these CPUs, so runs wait for them.
// ---------------------------------------------------------------------------------------------

/** A run is repeated when more than this share of the CPUs went to processes the bench does not measure. */
const MAX_OTHER_CPU = 0.12;

function otherBenchmarks(): string[] {
  if (process.env.BENCH_WAIT_FOR_OTHERS === '0') return [];
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    if (/bench\/(?!bus\.ts)[\w.-]+\.ts\b|node_modules\/\.bin\/jest\b|jest-worker\/build\/processChild/.test(cmdline)) found.push(`${pid} ${cmdline}`);
  }
  return found;
}

async function waitForOtherBenchmarks(): Promise<void> {
  let told = false;
  for (;;) {
    const others = otherBenchmarks();
    if (others.length === 0) return;
    if (!told) console.log(`  waiting for other work to finish: ${others[0].slice(0, 160)}`);
    told = true;
    await sleep(5000);
  }
}

// ---------------------------------------------------------------------------------------------
// CPU accounting from /proc (Linux).
// ---------------------------------------------------------------------------------------------

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

function processTicks(pid: number | string): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime
  } catch {
    return NaN;
  }
}

interface ProcessCounters {
  /** CPU time, ms. */
  cpu: number;
  /** read and write system calls (/proc/<pid>/io; sockets included). */
  reads: number;
  writes: number;
  /** Context switches of all the process's threads. */
  switches: number;
}

function processCounters(pid: number | string): ProcessCounters {
  const cpu = processTicks(pid) * CLOCK_TICK_MS;
  let reads = NaN;
  let writes = NaN;
  let switches = 0;
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    reads = Number(/syscr:\s*(\d+)/.exec(io)?.[1]);
    writes = Number(/syscw:\s*(\d+)/.exec(io)?.[1]);
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      switches += Number(/voluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0) + Number(/nonvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
    }
  } catch {
    /* gone, or not readable */
  }
  return { cpu, reads, writes, switches };
}

const addCounters = (a: ProcessCounters, b: ProcessCounters): ProcessCounters => ({
  cpu: a.cpu + (b.cpu || 0),
  reads: a.reads + (b.reads || 0),
  writes: a.writes + (b.writes || 0),
  switches: a.switches + (b.switches || 0),
});
const ZERO: ProcessCounters = { cpu: 0, reads: 0, writes: 0, switches: 0 };

/**
 * Counters per component: the given processes, every postgres and beam.smp (RabbitMQ)
 * process, and this one (CPU only). A postgres backend that exits during a run loses
 * its share; the pools keep theirs open.
 */
function cpuSnapshot(own: Record<string, number[]>): Record<string, ProcessCounters> {
  const out: Record<string, ProcessCounters> = {};
  for (const [name, pids] of Object.entries(own)) out[name] = pids.map(processCounters).reduce(addCounters, ZERO);
  let postgres = ZERO;
  let rabbitmq = ZERO;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let comm: string;
    try {
      comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm === 'postgres') postgres = addCounters(postgres, processCounters(pid));
    else if (comm === 'beam.smp') rabbitmq = addCounters(rabbitmq, processCounters(pid));
  }
  out.postgres = postgres;
  out.rabbitmq = rabbitmq;
  const self = process.cpuUsage();
  out.parent = { cpu: (self.user + self.system) / 1000, reads: NaN, writes: NaN, switches: NaN };
  return out;
}

function machineCpu(): { busy: number; total: number } {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
    const busy = user + nice + system + irq + softirq + (steal || 0);
    return { busy, total: busy + idle + iowait };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

// ---------------------------------------------------------------------------------------------
// Children: the kernels.
// ---------------------------------------------------------------------------------------------

function onRequests(handlers: { publish?: (command: PublishCommand) => Promise<unknown>; stats?: () => unknown; stop: () => Promise<void> }): void {
  process.on('message', async (message: ParentMessage) => {
    if (message.type === 'stop') {
      await handlers.stop().catch((error) => console.error(error));
      process.exit(0);
    }
    if (message.type !== 'request') return;
    try {
      const data = message.op === 'publish' ? await handlers.publish!(message.command) : await handlers.stats?.();
      process.send!({ type: 'reply', id: message.id, data } satisfies ChildMessage);
    } catch (error) {
      process.send!({ type: 'reply', id: message.id, error: String((error as Error).stack ?? error) } satisfies ChildMessage);
    }
  });
}

/** Sends what the consumer handled to the parent every 100 ms, so the handler itself only pushes to arrays. */
function handledReporter(): (payload: BenchPayload, handledAt: number) => void {
  let pending: Handled = {};
  let any = false;
  const flush = () => {
    if (!any) return;
    process.send!({ type: 'handled', batches: pending } satisfies ChildMessage);
    pending = {};
    any = false;
  };
  setInterval(flush, 100);
  return (payload, handledAt) => {
    const batch = (pending[payload.run] ??= { seq: [], latency: [], at: [] });
    batch.seq.push(payload.seq);
    batch.latency.push(handledAt - payload.committedAt);
    batch.at.push(handledAt);
    any = true;
  };
}

async function bootKernel(role: 'serve' | 'worker') {
  const { Kernel } = require('../core/kernel/kernel') as typeof import('../core/kernel/kernel');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
  const overrides = process.env.BENCH_KERNEL_CONFIG ? JSON.parse(process.env.BENCH_KERNEL_CONFIG) : {};
  const kernel = await Kernel.boot({
    role,
    plugins: [PLUGIN_DIR],
    // Only what is set here: the host's environment must not change what is measured.
    env: {},
    migrate: true,
    config: {
      port: 0,
      host: '127.0.0.1',
      databaseUrl: process.env.BENCH_DATABASE_URL,
      amqpUrl: process.env.BENCH_AMQP_URL,
      busNamespace: process.env.BENCH_NAMESPACE,
      dataDir,
      // Required with DATABASE_URL; nothing in this bench stores a secret.
      secretsKey: crypto.randomBytes(32).toString('base64'),
      logLevel: 'warn',
      'bus-bench': { concurrency: Number(process.env.BENCH_CONCURRENCY) },
      ...overrides,
    },
  });
  await kernel.start();
  const stats = instrument(kernel);
  return {
    kernel,
    stats,
    stop: async () => {
      await kernel.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Times the relay's steps and the deliveries by wrapping methods of this process's
 * bus objects (no change to the kernel): a few clock reads per batch or message.
 */
function instrument(kernel: import('../core/kernel/kernel').Kernel): RelayStats {
  const stats: RelayStats = {
    claims: 0,
    emptyClaims: 0,
    claimed: 0,
    claimMs: 0,
    sends: 0,
    sendMs: 0,
    completed: 0,
    completes: 0,
    completeMs: 0,
    nextDueQueries: 0,
    nextDueMs: 0,
    deliveries: 0,
    batches: 0,
    deliverMs: 0,
    outcomes: {},
    maxBatch: 0,
  };
  const wrap = <T extends object>(target: T, method: string, after: (ms: number, args: any[], result: any) => void) => {
    const original = (target as any)[method].bind(target);
    (target as any)[method] = async (...args: any[]) => {
      const start = performance.now();
      const result = await original(...args);
      after(performance.now() - start, args, result);
      return result;
    };
  };
  const bus = kernel.bus as any;
  wrap(bus.outbox, 'claim', (ms, _args, claim: { envelopes: unknown[] } | unknown[]) => {
    // Older kernels returned the rows alone (and asked for the next due time in a statement of its own).
    const rows = Array.isArray(claim) ? claim : claim.envelopes;
    stats.claims++;
    stats.claimMs += ms;
    stats.claimed += rows.length;
    if (rows.length === 0) stats.emptyClaims++;
    stats.maxBatch = Math.max(stats.maxBatch, rows.length);
  });
  if (typeof bus.outbox.flushCompleted === 'function') {
    // complete() only notes the rows: the relay's next claim deletes them, or flushCompleted() a moment later.
    const complete = bus.outbox.complete.bind(bus.outbox);
    bus.outbox.complete = (ids: string[]) => {
      stats.completed += ids.length;
      return complete(ids);
    };
    wrap(bus.outbox, 'flushCompleted', (ms, _args, deleted: number) => {
      if (!deleted) return;
      stats.completes++;
      stats.completeMs += ms;
    });
  } else {
    // Older kernels: complete() deletes at once.
    wrap(bus.outbox, 'complete', (ms, args) => {
      stats.completed += args[0].length;
      stats.completes++;
      stats.completeMs += ms;
    });
  }
  if (typeof bus.outbox.msUntilNextDue === 'function') {
    wrap(bus.outbox, 'msUntilNextDue', (ms) => {
      stats.nextDueQueries++;
      stats.nextDueMs += ms;
    });
  }
  if (bus.transport) {
    wrap(bus.transport, 'send', (ms) => {
      stats.sends++;
      stats.sendMs += ms;
    });
  }
  if (typeof bus.delivery.deliverBatch === 'function') {
    wrap(bus.delivery, 'deliverBatch', (ms, args, result: { outcomes: string[] }) => {
      stats.batches++;
      stats.deliveries += args[1].length;
      stats.deliverMs += ms;
      for (const outcome of result.outcomes) stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
    });
  } else {
    // Older kernels: one transaction per message.
    wrap(bus.delivery, 'deliver', (ms, _args, outcome: string) => {
      stats.batches++;
      stats.deliveries++;
      stats.deliverMs += ms;
      stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
    });
  }
  return stats;
}

async function busPublisher(): Promise<void> {
  const { kernel, stats, stop } = await bootKernel('serve');
  const { publisher } = require(path.join(PLUGIN_DIR, 'index.ts')) as typeof import('./plugins/bus-bench');
  const pub = publisher.current;
  if (!pub) throw new Error('the bus-bench plugin did not initialise in this process');
  // Messages are published as a tenant's work, as a write request would.
  const { tenant } = await kernel.tenants.createTenant({ slug: 'bench' });
  const tenantRef = { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name };

  onRequests({
    stats: () => stats,
    stop,
    publish: (command) =>
      publishInTransactions(command, (_loop, size, make) => {
        let first = 0;
        return pub
          .transaction(tenantRef, size, (i) => {
            const payload = make(i);
            if (i === 0) first = payload.committedAt;
            return payload;
          })
          .then(() => first);
      }),
  });
  process.send!({
    type: 'ready',
    info: { relayBatchSize: kernel.config.core.busRelayBatchSize, poolMax: kernel.config.core.databasePoolMax },
  } satisfies ChildMessage);
}

/**
 * The publishing side of a bus run: `concurrency` loops committing transactions of
 * `perTx` messages (the last one smaller) until `count` are written, paced when `rate`
 * is set. `transaction(loop, size, make)` commits one, building its i-th payload with
 * `make(i)` just before writing it, and resolves with the first payload's committedAt.
 */
async function publishInTransactions(
  { run, count, perTx, concurrency, rate }: PublishCommand,
  transaction: (loop: number, size: number, make: (i: number) => BenchPayload) => Promise<number>,
): Promise<PublishResult> {
  const transactions = Math.ceil(count / perTx);
  const commitMs: number[] = [];
  let next = 0;
  let lagMaxMs = 0;
  const startedAt = now();
  const loop = async (index: number) => {
    for (;;) {
      const t = next++;
      if (t >= transactions) return;
      if (rate > 0) {
        const due = startedAt + (t * perTx * 1000) / rate;
        const wait = due - now();
        if (wait > 0) await sleep(wait);
        else lagMaxMs = Math.max(lagMaxMs, -wait);
      }
      const first = await transaction(index, Math.min(perTx, count - t * perTx), (i) => makePayload(run, t * perTx + i));
      commitMs.push(now() - first);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  return { run, startedAt, endedAt: now(), transactions, commitMs: summarize(commitMs), lagMaxMs: round3(lagMaxMs), errors: 0 };
}

async function busWorker(): Promise<void> {
  const { sink } = require(path.join(PLUGIN_DIR, 'index.ts')) as typeof import('./plugins/bus-bench');
  sink.onHandled = handledReporter();
  const { stats, stop } = await bootKernel('worker');
  onRequests({ stats: () => stats, stop });
  process.send!({ type: 'ready', info: {} } satisfies ChildMessage);
}

/** The exchange and queue of the floor's or the raw side's AMQP traffic, beside the kernel's. */
const sideNames = (side: 'floor' | 'raw') => ({ exchange: `${process.env.BENCH_NAMESPACE}-${side}`, queue: `${process.env.BENCH_NAMESPACE}-${side}.sink` });

/**
 * A connection and a channel (a confirm channel to publish on) for the side's traffic,
 * with the same exchange, queue and binding the kernel declares, under the side's names.
 */
async function openSide<Confirm extends boolean>(side: 'floor' | 'raw', confirm: Confirm) {
  const amqp = require('amqplib') as typeof import('amqplib');
  const connection = await amqp.connect(process.env.BENCH_AMQP_URL!);
  const channel = (confirm ? await connection.createConfirmChannel() : await connection.createChannel()) as Confirm extends true
    ? import('amqplib').ConfirmChannel
    : import('amqplib').Channel;
  const { exchange, queue } = sideNames(side);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(queue, exchange, 'bench.#');
  return { connection, channel, exchange, queue };
}

// ---------------------------------------------------------------------------------------------
// Children: the floor. The bus's own statements (core/bus/outbox-store.ts, delivery.ts) and
// the relay's AMQP traffic from bare loops on plain pg clients: no kernel, no ORM, no request
// or tenant context, no handler. Same durability as the bus (an outbox row committed per
// transaction, confirms, an inbox transaction per batch), so it is the fastest any code of
// this design could go on this machine, and the bus's distance to it is what the kernel costs.
// ---------------------------------------------------------------------------------------------

/** The floor's tables: copies of the bus's in a schema of their own, which the kernels' relays never look at. */
const FLOOR_SCHEMA = 'bench_floor';

/** A plain pg client whose unqualified table names are the floor's, so the kernel's statement texts run unchanged. */
async function floorClient(): Promise<import('pg').Client> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: process.env.BENCH_DATABASE_URL, options: `-c search_path=${FLOOR_SCHEMA}` });
  await client.connect();
  return client;
}

async function floorPublisher(): Promise<void> {
  const { INSERT_DUE_IN, CLAIM_AND_DELETE, VACUUM_AFTER_ROWS, VACUUM_EVERY_MS } = require('../core/bus/outbox-store') as typeof import('../core/bus/outbox-store');
  const { newMessageId } = require('../core/bus/message-ids') as typeof import('../core/bus/message-ids');
  const { WakeSignal } = require('../core/bus/wake-signal') as typeof import('../core/bus/wake-signal');
  const relayDb = await floorClient();
  await relayDb.query(
    `create schema if not exists ${FLOOR_SCHEMA}; ` +
      `create table if not exists ${FLOOR_SCHEMA}.bus_outbox (like public.bus_outbox including all); ` +
      `create table if not exists ${FLOOR_SCHEMA}.bus_inbox (like public.bus_inbox including all)`,
  );
  const { connection, channel, exchange } = await openSide('floor', true);
  const batchSize = Number(process.env.BENCH_WINDOW);
  const tenantUuid = crypto.randomUUID();
  const signal = new WakeSignal();
  const publishers: import('pg').Client[] = [];
  // The outbox's dead rows vacuumed as OutboxStore does (after VACUUM_AFTER_ROWS deletions, at most every VACUUM_EVERY_MS, in the background):
  // without it every claim reads more of them, and the floor slows down run after run.
  const maintenance = await floorClient();
  let deletedSinceVacuum = 0;
  let lastVacuum = 0;
  let vacuuming: Promise<unknown> | undefined;
  const deleted = (rows: number) => {
    deletedSinceVacuum += rows;
    if (vacuuming || deletedSinceVacuum < VACUUM_AFTER_ROWS || Date.now() - lastVacuum < VACUUM_EVERY_MS) return;
    deletedSinceVacuum = 0;
    lastVacuum = Date.now();
    vacuuming = maintenance.query('vacuum (skip_locked) bus_outbox').finally(() => (vacuuming = undefined));
  };

  // The relay: claim (deleting the rows the last claim sent), publish, wait for the confirms; sleep when nothing is due.
  let running = true;
  const relay = (async () => {
    let sent: string[] = [];
    while (running) {
      const { rows } = await relayDb.query({ name: CLAIM_AND_DELETE.name, text: CLAIM_AND_DELETE.text, values: [60, batchSize, sent] });
      deleted(sent.length);
      sent = [];
      const claimed = rows.filter((row) => row.id !== null);
      if (claimed.length === 0) {
        await signal.wait(1000);
        continue;
      }
      for (const row of claimed) {
        channel.publish(exchange, row.topic, Buffer.from(JSON.stringify(row.payload)), {
          persistent: true,
          messageId: row.message_id,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          headers: { ...row.headers, 'x-switchboard-attempt': row.attempt, 'x-switchboard-topic': row.topic, 'x-switchboard-tenant': row.tenant_uuid },
        });
      }
      await channel.waitForConfirms();
      sent = claimed.map((row) => row.id);
    }
  })();

  onRequests({
    stop: async () => {
      running = false;
      signal.notify();
      await relay;
      await vacuuming;
      await connection.close();
      await Promise.all([relayDb, maintenance, ...publishers].map((client) => client.end()));
    },
    publish: async (command) => {
      while (publishers.length < command.concurrency) publishers.push(await floorClient());
      // What the ORM sends for a transaction that publishes: BEGIN, the outbox INSERTs, COMMIT.
      return publishInTransactions(command, async (loop, size, make) => {
        const client = publishers[loop];
        let first = 0;
        await client.query('begin');
        for (let i = 0; i < size; i++) {
          const payload = make(i);
          if (i === 0) first = payload.committedAt;
          await client.query({
            name: INSERT_DUE_IN.name,
            text: INSERT_DUE_IN.text,
            values: [newMessageId(), newMessageId(), TOPIC, JSON.stringify(payload), '{}', tenantUuid, null, null, 1, 0],
          });
        }
        await client.query('commit');
        signal.notify();
        return first;
      });
    },
  });
  process.send!({ type: 'ready', info: {} } satisfies ChildMessage);
}

async function floorConsumer(): Promise<void> {
  const { RECORD_IN_INBOX } = require('../core/bus/delivery') as typeof import('../core/bus/delivery');
  const { MAX_BATCH } = require('../core/bus/consumer-batches') as typeof import('../core/bus/consumer-batches');
  const concurrency = Number(process.env.BENCH_CONCURRENCY);
  // The kernel's batching of quick handlers (ConsumerBatches): two batches at once, one filling while the other commits.
  const idle = await Promise.all(Array.from({ length: Math.min(concurrency, 2) }, floorClient));
  const clients = [...idle];
  const { connection, channel, queue } = await openSide('floor', false);
  await channel.prefetch(quickPrefetch(concurrency));
  const report = handledReporter();
  const waiting: import('amqplib').ConsumeMessage[] = [];

  // One transaction per batch: the inbox rows of the messages waiting when a connection is free (up to the kernel's MAX_BATCH).
  const handle = async (client: import('pg').Client, batch: import('amqplib').ConsumeMessage[]) => {
    try {
      await client.query('begin');
      await client.query({ name: RECORD_IN_INBOX.name, text: RECORD_IN_INBOX.text, values: ['floor.sink', batch.map((message) => message.properties.messageId)] });
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      for (const message of batch) channel.nack(message, false, true);
      console.error('floor consumer: batch failed', error);
      return;
    }
    const handledAt = now();
    for (const message of batch) {
      report(JSON.parse(message.content.toString('utf8')), handledAt);
      channel.ack(message);
    }
  };
  let scheduled = false;
  const pump = () => {
    scheduled = false;
    while (idle.length > 0 && waiting.length > 0) {
      const client = idle.pop()!;
      void handle(client, waiting.splice(0, MAX_BATCH)).finally(() => {
        idle.push(client);
        pump();
      });
    }
  };
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      waiting.push(message);
      // Messages read from the socket together arrive in one tick: batch them (as ConsumerBatches.submit does).
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(pump);
      }
    },
    { noAck: false },
  );
  onRequests({
    stop: async () => {
      await connection.close();
      await Promise.all(clients.map((client) => client.end()));
    },
  });
  process.send!({ type: 'ready', info: {} } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------
// Children: the raw amqplib baseline.
// ---------------------------------------------------------------------------------------------


async function rawPublisher(): Promise<void> {
  const { connection, channel, exchange } = await openSide('raw', true);
  const window = Number(process.env.BENCH_WINDOW);
  // A tenant uuid in the headers, as the relay sends for a tenant's message.
  const tenantUuid = crypto.randomUUID();

  onRequests({
    stop: async () => {
      await connection.close();
    },
    publish: async ({ run, count, rate }) => {
      let outstanding = 0;
      let errors = 0;
      let wake: (() => void) | undefined;
      let lagMaxMs = 0;
      const confirmMs: number[] = [];
      const startedAt = now();
      for (let seq = 0; seq < count; seq++) {
        if (rate > 0) {
          const due = startedAt + (seq * 1000) / rate;
          const wait = due - now();
          if (wait > 0) await sleep(wait);
          else lagMaxMs = Math.max(lagMaxMs, -wait);
        }
        // At most `window` unconfirmed messages, as the relay has at most one batch in flight.
        while (outstanding >= window) await new Promise<void>((resolve) => (wake = resolve));
        const payload = makePayload(run, seq);
        const sentAt = payload.committedAt;
        outstanding++;
        channel.publish(
          exchange,
          TOPIC,
          Buffer.from(JSON.stringify(payload)),
          {
            persistent: true,
            messageId: crypto.randomUUID(),
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            headers: { 'x-switchboard-attempt': 1, 'x-switchboard-topic': TOPIC, 'x-switchboard-tenant': tenantUuid },
          },
          (error) => {
            outstanding--;
            if (error) errors++;
            if (seq % 10 === 0) confirmMs.push(now() - sentAt);
            const resolve = wake;
            wake = undefined;
            resolve?.();
          },
        );
      }
      await channel.waitForConfirms();
      return {
        run,
        startedAt,
        endedAt: now(),
        transactions: count,
        commitMs: summarize(confirmMs),
        lagMaxMs: round3(lagMaxMs),
        errors,
      } satisfies PublishResult;
    },
  });
  process.send!({ type: 'ready', info: {} } satisfies ChildMessage);
}

async function rawConsumer(): Promise<void> {
  const { connection, channel, queue } = await openSide('raw', false);
  await channel.prefetch(quickPrefetch(Number(process.env.BENCH_CONCURRENCY)));
  const report = handledReporter();
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      report(JSON.parse(message.content.toString('utf8')), now());
      channel.ack(message);
    },
    { noAck: false },
  );
  onRequests({
    stop: async () => {
      await connection.close();
    },
  });
  process.send!({ type: 'ready', info: {} } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------

function summarize(values: number[]): PublishResult['commitMs'] {
  const sorted = Float64Array.from(values).sort();
  return { p50: round3(percentile(sorted, 50)), p99: round3(percentile(sorted, 99)), max: round3(sorted[sorted.length - 1] ?? NaN) };
}

const role = process.argv[2];
const childRoles: Record<Role, () => Promise<void>> = {
  'bus-publisher': busPublisher,
  'bus-worker': busWorker,
  'floor-publisher': floorPublisher,
  'floor-consumer': floorConsumer,
  'raw-publisher': rawPublisher,
  'raw-consumer': rawConsumer,
};
if (role) {
  const start = childRoles[role as Role];
  if (!start) throw new Error(`unknown role ${role}`);
  start().catch((error) => {
    process.send?.({ type: 'error', error: String((error as Error).stack ?? error) } satisfies ChildMessage);
    process.exit(1);
  });
} else {
  void main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
