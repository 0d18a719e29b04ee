/**
 * bench/flows: executions per second and per-step overhead of the flow engine, end to
 * end, side by side with a raw baseline that issues the same SQL from a plain loop, in
 * the same run.
 *
 *   node -r ./bin/register-ts.js bench/flows.ts      (npm run bench:flows)
 *
 * The flow (6 steps): webhook `catch_hook` -> logic `if_condition` (true) -> 4 logic
 * `set_variables`, each of the last three using the previous one's output through a
 * `{{stepN.path}}` reference. History is on: every step of every execution is recorded.
 *
 * Engine side (children of this process, as a production deployment runs them):
 *   serve   `switchboard serve`: the hook route; each POST commits the execution row and
 *           its outbox row in one transaction; its relay moves messages to RabbitMQ.
 *   worker  `switchboard worker`: the execution consumer runs the steps and records them.
 * BENCH_CLIENTS keep-alive HTTP clients POST to the hook URL as fast as answers come;
 * an execution counts when its row is `succeeded`. Throughput = N / (last finished_at -
 * first created_at), both from the database clock.
 *
 * Raw side: BENCH_CLIENTS loops over one pg pool, each execution two transactions as the
 * engine's: (1) INSERT the execution row; (2) UPDATE it to running, INSERT the 5 step
 * rows in one statement, UPDATE it to succeeded. No HTTP, no outbox, no broker, no
 * rendering: what the engine's work costs PostgreSQL alone. Its statements are named
 * prepared statements, as the engine's are (core/data/prepared-statements.ts).
 *
 * Latency: a paced run at half the engine's saturated rate for BENCH_PACED_SECONDS;
 * per execution, created_at -> finished_at (hook commit to last step recorded). The
 * per-step overhead is that time, less the steps' own recorded durations, divided by
 * the 5 steps the engine runs; p50 is the goal's figure.
 *
 * Environment:
 *   DATABASE_URL        PostgreSQL server for the bench database (default postgresql://postgres@127.0.0.1:5432/postgres)
 *   AMQP_URL            RabbitMQ (default amqp://guest:guest@127.0.0.1:5672); "none" runs the in-process bus
 *   BENCH_EXECUTIONS    executions per saturated run (default 5000)
 *   BENCH_WARMUP        executions before the rounds (default 1000)
 *   BENCH_ROUNDS        saturated rounds per side (default 3)
 *   BENCH_CLIENTS       concurrent HTTP clients / raw loops (default 16)
 *   BENCH_PACED_SECONDS length of the paced run (default 10)
 *   BENCH_NODE_FLAGS    extra node flags for the serve and worker children (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
 *   BENCH_VERBOSE=1     also print the rate at which hooks were accepted
 *   BENCH_ENFORCE=1     exit 1 when a goal is missed
 *   BENCH_APP_ROLE=1    serve and worker connect as a role row-level policies apply to (bench/lib/app-role.ts)
 *   BENCH_COMPARE=row-level-security  instead of the raw loop, two installations side by side, both
 *                       connecting as that role, one with DATABASE_ROW_LEVEL_SECURITY on (the default) and
 *                       one with it off; rounds alternate between them. Goal: with the policies, >= 97% of
 *                       the executions per second without them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, Pool } from 'pg';
import { fmt, median, numberEnv, percentile, round3 } from './lib/bench-stats';
import { CLI, dropDatabase, removeInstallationTopology, jsonRequest, prepareInstallation, stopChildren, waitReady, SERVER_NODE_FLAGS } from './lib/switchboard-process';

const RESULTS_FILE = path.join(__dirname, 'results', 'flows.json');
const SERVER_URL = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const AMQP_URL = process.env.AMQP_URL === 'none' ? '' : (process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
const EXECUTIONS = numberEnv('BENCH_EXECUTIONS', 5000);
const WARMUP = numberEnv('BENCH_WARMUP', 1000);
const ROUNDS = numberEnv('BENCH_ROUNDS', 3);
const CLIENTS = numberEnv('BENCH_CLIENTS', 16);
const PACED_SECONDS = numberEnv('BENCH_PACED_SECONDS', 10);
const ACTION_STEPS = 5;
const TENANT = 'bench';

/** The goals. */
const GOALS = { minExecutionsPerSecond: 500, maxStepOverheadP50Ms: 5 };

interface Setup {
  databaseName: string;
  databaseUrl: string;
  port: number;
  token: string;
  tenantUuid: string;
  flowUuid: string;
  versionUuid: string;
  hookPath: string;
  children: ChildProcess[];
  /** The installation's environment (its bus namespace, for the cleanup). */
  env: NodeJS.ProcessEnv;
}



const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One JSON request to the serve child, as the bench tenant. */
function request(port: number, token: string | null, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return jsonRequest({ port, agent, tenantSlug: TENANT, token }, method, requestPath, body);
}

async function expectStatus(promise: Promise<{ status: number; body: any }>, status: number, what: string) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}


async function setUp(options: { appRole?: boolean; extraEnv?: NodeJS.ProcessEnv } = {}): Promise<Setup> {
  const { name, databaseUrl, port, env, token, tenantUuid } = await prepareInstallation({ serverUrl: SERVER_URL, prefix: 'sb_bench_flows', amqpUrl: AMQP_URL, tenant: TENANT, ...options });
  const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const children = ['serve', 'worker'].map((role) => spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, CLI, role], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  await waitReady(port);

  const flow = (await expectStatus(request(port, token, 'POST', '/api/v1/flow', { name: 'bench' }), 201, 'create flow')).data;
  const step = (body: Record<string, unknown>) => expectStatus(request(port, token, 'POST', `/api/v1/flow/${flow.uuid}/steps`, body), 201, `add step ${JSON.stringify(body)}`);
  const trigger = (await step({ app_uid: 'webhook', trigger_key: 'catch_hook', config: {} })).data;
  await step({ app_uid: 'logic', action_key: 'if_condition', config: { joiner: 'and', conditions: [{ left: '{{step1.body.amount}}', operator: 'greater_than', right: 10 }] } });
  await step({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { order: '{{step1.body.order}}', amount: '{{step1.body.amount}}' } } });
  for (let n = 3; n <= 5; n++) await step({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { order: `{{step${n}.order}}`, hop: n } } });
  const deployed = (await expectStatus(request(port, token, 'POST', `/api/v1/flow/${flow.uuid}/deploy`), 200, 'deploy')).data;
  const hookPath = new URL(trigger.config.hook_url).pathname;
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const [{ uuid: versionUuid }] = (await db.query(`select uuid from flow_versions where flow_uuid = $1 and active`, [deployed.uuid])).rows;
  await db.end();
  return { databaseName: name, databaseUrl, port, token, tenantUuid, flowUuid: flow.uuid, versionUuid, hookPath, children, env };
}

/** Fires `count` hook calls from CLIENTS clients, optionally paced at `rate` per second overall. */
async function fireHooks(setup: Setup, count: number, rate?: number): Promise<void> {
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (true) {
      const i = next++;
      if (i >= count) return;
      if (rate) {
        const due = started + (i / rate) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const res = await request(setup.port, null, 'POST', setup.hookPath, { order: `o-${i}`, amount: 10 + (i % 90) + 1 });
      if (res.status !== 202) throw new Error(`hook answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

/** Waits until every execution created since `since` is finished; returns their timings. */
async function drained(pool: Pool, since: Date, expected: number) {
  for (;;) {
    const { rows } = await pool.query(`select count(*)::int as done, count(*) filter (where status = 'failed')::int as failed from flow_executions where created_at >= $1 and status in ('succeeded', 'failed')`, [since]);
    if (rows[0].failed > 0) throw new Error(`${rows[0].failed} executions failed`);
    if (rows[0].done >= expected) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const { rows } = await pool.query(
    `select extract(epoch from (e.finished_at - e.created_at)) * 1000 as latency_ms,
            (select coalesce(sum(s.duration_ms), 0) from flow_execution_steps s where s.execution_uuid = e.uuid) as steps_ms,
            (select count(*) from flow_execution_steps s where s.execution_uuid = e.uuid)::int as steps,
            e.created_at, e.finished_at
       from flow_executions e where e.created_at >= $1`,
    [since],
  );
  return rows as Array<{ latency_ms: number; steps_ms: number; steps: number; created_at: Date; finished_at: Date }>;
}

function throughputOf(rows: Array<{ created_at: Date; finished_at: Date }>): number {
  const first = Math.min(...rows.map((r) => r.created_at.getTime()));
  const last = Math.max(...rows.map((r) => r.finished_at.getTime()));
  return rows.length / ((last - first) / 1000);
}

async function engineRound(setup: Setup, pool: Pool, count: number, rate?: number) {
  const { rows } = await pool.query('select now() as now');
  const since: Date = rows[0].now;
  const started = performance.now();
  await fireHooks(setup, count, rate);
  const acceptedPerSecond = count / ((performance.now() - started) / 1000);
  const done = await drained(pool, since, count);
  if (process.env.BENCH_VERBOSE) console.log(`  hooks accepted at ${fmt(acceptedPerSecond, 0)}/s`);
  const wrongSteps = done.filter((row) => row.steps !== ACTION_STEPS);
  if (wrongSteps.length > 0) throw new Error(`${wrongSteps.length} executions recorded other than ${ACTION_STEPS} steps`);
  return done;
}

/** The raw baseline: the engine's SQL for one execution, from a plain loop. */
async function rawRound(setup: Setup, pool: Pool, count: number): Promise<number> {
  const stepUuids = Array.from({ length: ACTION_STEPS }, () => crypto.randomUUID());
  const request = JSON.stringify({ variables: { order: 'o', hop: 1 } });
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    const client = await pool.connect();
    try {
      while (next++ < count) {
        const execution = crypto.randomUUID();
        await client.query('begin');
        await client.query({
          name: 'raw-insert-execution',
          text: `insert into flow_executions (uuid, tenant_uuid, created_at, updated_at, flow_uuid, version_uuid, status, trigger_event, cursor, segment) values ($1, $2, now(), now(), $3, $4, 'queued', $5, $6, 0)`,
          values: [execution, setup.tenantUuid, setup.flowUuid, setup.versionUuid, JSON.stringify({ body: { order: 'o', amount: 42 }, query: {}, headers: {} }), stepUuids[0]],
        });
        await client.query('commit');
        await client.query('begin');
        await client.query({ name: 'raw-start-execution', text: `update flow_executions set status = 'running', started_at = now(), updated_at = now() where uuid = $1`, values: [execution] });
        const values: unknown[] = [];
        const tuples = stepUuids.map((step, index) => {
          values.push(crypto.randomUUID(), setup.tenantUuid, execution, step, index + 2, request, request);
          const p = index * 7;
          return `($${p + 1}, $${p + 2}, now(), now(), $${p + 3}, $${p + 4}, $${p + 5}, 'succeeded', $${p + 6}, $${p + 7}, null, 0)`;
        });
        await client.query({
          name: 'raw-insert-steps',
          text: `insert into flow_execution_steps (uuid, tenant_uuid, created_at, updated_at, execution_uuid, step_uuid, position, status, request, response, error, duration_ms) values ${tuples.join(', ')}`,
          values,
        });
        await client.query({
          name: 'raw-finish-execution',
          text: `update flow_executions set status = 'succeeded', cursor = null, finished_at = now(), updated_at = now() where uuid = $1`,
          values: [execution],
        });
        await client.query('commit');
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  return count / ((performance.now() - started) / 1000);
}

async function main() {
  if (process.env.BENCH_COMPARE === 'row-level-security') return compareRowLevelSecurity();
  const setup = await setUp();
  const pool = new Pool({ connectionString: setup.databaseUrl, max: CLIENTS + 2 });
  try {
    console.log(`bench/flows: ${EXECUTIONS} executions x ${ROUNDS} rounds, ${CLIENTS} clients, bus ${AMQP_URL ? 'RabbitMQ' : 'in-process'}`);
    await engineRound(setup, pool, WARMUP);
    await rawRound(setup, pool, WARMUP);
    const engine: number[] = [];
    const raw: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      engine.push(throughputOf(await engineRound(setup, pool, EXECUTIONS)));
      raw.push(await rawRound(setup, pool, EXECUTIONS));
      console.log(`round ${round}: engine ${fmt(engine.at(-1)!, 0)} executions/s, raw ${fmt(raw.at(-1)!, 0)} executions/s`);
    }
    const engineRate = median(engine);
    const rawRate = median(raw);
    const pacedRate = engineRate / 2;
    const paced = await engineRound(setup, pool, Math.round(pacedRate * PACED_SECONDS), pacedRate);
    const latencies = paced.map((row) => Number(row.latency_ms)).sort((a, b) => a - b);
    const overheads = paced.map((row) => (Number(row.latency_ms) - Number(row.steps_ms)) / ACTION_STEPS).sort((a, b) => a - b);
    const result = {
      measured_at: new Date().toISOString(),
      executions_per_round: EXECUTIONS,
      clients: CLIENTS,
      bus: AMQP_URL ? 'rabbitmq' : 'in-process',
      engine_executions_per_s: round3(engineRate),
      raw_executions_per_s: round3(rawRate),
      ratio: round3(engineRate / rawRate),
      paced_rate_per_s: round3(pacedRate),
      latency_ms: { p50: round3(percentile(latencies, 50)), p99: round3(percentile(latencies, 99)) },
      step_overhead_ms: { p50: round3(percentile(overheads, 50)), p99: round3(percentile(overheads, 99)) },
      goals: GOALS,
    };
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2));
    console.log(
      [
        `engine: ${fmt(engineRate, 0)} executions/s (goal >= ${GOALS.minExecutionsPerSecond}), raw SQL loop: ${fmt(rawRate, 0)}/s, ratio ${fmt(engineRate / rawRate)}`,
        `paced at ${fmt(pacedRate, 0)}/s: hook commit -> last step p50 ${fmt(result.latency_ms.p50)} ms, p99 ${fmt(result.latency_ms.p99)} ms`,
        `engine overhead per step: p50 ${fmt(result.step_overhead_ms.p50)} ms (goal < ${GOALS.maxStepOverheadP50Ms}), p99 ${fmt(result.step_overhead_ms.p99)} ms`,
      ].join('\n'),
    );
    const missed = engineRate < GOALS.minExecutionsPerSecond || result.step_overhead_ms.p50 >= GOALS.maxStepOverheadP50Ms;
    if (missed && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
  } finally {
    await pool.end();
    await stopChildren(setup.children);
    agent.destroy();
    await removeInstallationTopology(setup.env);
    await dropDatabase(SERVER_URL, setup.databaseName);
  }
}

/** The policies' cost: the same engine with and without them, as the same role, rounds alternating. */
async function compareRowLevelSecurity() {
  const sides = { on: await setUp({ appRole: true }), off: await setUp({ appRole: true, extraEnv: { DATABASE_ROW_LEVEL_SECURITY: 'false' } }) };
  const pools = { on: new Pool({ connectionString: sides.on.databaseUrl, max: 4 }), off: new Pool({ connectionString: sides.off.databaseUrl, max: 4 }) };
  const names = ['on', 'off'] as const;
  try {
    console.log(`bench/flows, row-level security on vs off: ${EXECUTIONS} executions x ${ROUNDS} rounds per side, ${CLIENTS} clients, bus ${AMQP_URL ? 'RabbitMQ' : 'in-process'}`);
    for (const side of names) await engineRound(sides[side], pools[side], WARMUP);
    const rates = { on: [] as number[], off: [] as number[] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 === 1 ? names : ([...names].reverse() as Array<(typeof names)[number]>)) {
        rates[side].push(throughputOf(await engineRound(sides[side], pools[side], EXECUTIONS)));
        console.log(`round ${round}: policies ${side.padEnd(3)} ${fmt(rates[side].at(-1)!, 0)} executions/s`);
      }
    }
    const on = median(rates.on);
    const off = median(rates.off);
    // Latency at one rate for both: half of what the side without policies sustained.
    const pacedRate = off / 2;
    const overhead = async (side: (typeof names)[number]) => {
      const paced = await engineRound(sides[side], pools[side], Math.round(pacedRate * PACED_SECONDS), pacedRate);
      return percentile(paced.map((row) => (Number(row.latency_ms) - Number(row.steps_ms)) / ACTION_STEPS).sort((a, b) => a - b), 50);
    };
    const overheads = { on: await overhead('on'), off: await overhead('off') };
    const result = {
      measured_at: new Date().toISOString(),
      compare: 'row-level-security',
      executions_per_round: EXECUTIONS,
      rounds: ROUNDS,
      clients: CLIENTS,
      bus: AMQP_URL ? 'rabbitmq' : 'in-process',
      executions_per_s: { on: round3(on), off: round3(off), rounds: rates },
      ratio: round3(on / off),
      paced_rate_per_s: round3(pacedRate),
      step_overhead_p50_ms: { on: round3(overheads.on), off: round3(overheads.off) },
      goal: '>= 0.97',
    };
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE.replace(/\.json$/, '-rls.json'), JSON.stringify(result, null, 2));
    console.log(`policies on ${fmt(on, 0)}/s, off ${fmt(off, 0)}/s: on/off ${fmt((on / off) * 100, 1)}% (goal >= 97%): ${on / off >= 0.97 ? 'MET' : 'MISSED'}`);
    console.log(`engine overhead per step at ${fmt(pacedRate, 0)}/s, p50: on ${fmt(overheads.on)} ms, off ${fmt(overheads.off)} ms`);
    if (on / off < 0.97 && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
  } finally {
    for (const side of names) {
      await pools[side].end();
      await stopChildren(sides[side].children);
      await removeInstallationTopology(sides[side].env);
      await dropDatabase(SERVER_URL, sides[side].databaseName);
    }
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
