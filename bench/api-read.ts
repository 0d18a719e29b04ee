/**
 * bench/api-read: the kernel serving tenant-scoped reads against a baseline of raw
 * node:http + pg that does the same work in SQL terms and answers with
 * byte-identical JSON. Two scenarios, each measured and reported on its own:
 *
 *   notes  `GET /api/v1/notes/:uuid`: a small resource of the example plugin (both
 *          sides run findByUuid's statement as the same named prepared statement);
 *   agent  `GET /api/v1/agents/:uuid`: an agent with 20 guidelines, 20 notes,
 *          5 procedures of 5 steps, 50 training rows, 10 intents, 5 webhooks,
 *          10 routing and 5 guard rules and 3 phone numbers (about 25 KB of JSON).
 *
 *   node -r ./bin/register-ts.js bench/api-read.ts      (npm run bench:api-read)
 *
 * Each server runs in a child process of its own; autocannon runs here, in the
 * parent, so both sides are measured the same way. Rounds alternate
 * kernel/baseline, baseline/kernel, ... and the median per side is reported.
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default: an embedded server started for the run)
 *   BENCH_DURATION      seconds per measured run (default 10)
 *   BENCH_WARMUP        seconds of warm-up per side before the rounds (default 5)
 *   BENCH_ROUNDS        rounds; each measures both sides once (default 3)
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_RATE          optional: offer a fixed total rate (requests/s, autocannon's overallRate) instead of a
 *                       closed loop, to compare latencies at the same load. autocannon gives each connection a
 *                       per-second quota, so the load arrives in bursts at the start of each second.
 *   BENCH_POOL_MAX      database pool size of both servers (default: the kernel's DATABASE_POOL_MAX default)
 *   Both children run with SERVER_NODE_FLAGS (the flags `npm start` and the image use).
 *   BENCH_KERNEL_NODE_OPTIONS    extra node flags for the kernel child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_BASELINE_NODE_OPTIONS  the same for the baseline child
 *   BENCH_KERNEL_CONFIG  JSON object of extra kernel config overrides (experiments only), e.g. '{"logLevel":"warn"}'
 *   BENCH_SCENARIOS     comma-separated scenarios to run (default: notes,agent)
 *   BENCH_COMPARE=row-level-security  instead of the baseline, the same kernel with row-level
 *                       security off: both kernels connect as a role the policies apply to
 *                       (bench/lib/app-role.ts), each to a database of its own seeded alike, one
 *                       with DATABASE_ROW_LEVEL_SECURITY on (the default), one with it off. Its goal:
 *                       the kernel with the policies serves >= 97% of the requests it serves without.
 *   BENCH_APP_ROLE=1    connect both servers as that role (policies applied) in the usual comparison
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 */
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fmt, median, numberEnv, percentile, round3 } from './lib/bench-stats';
import { SERVER_NODE_FLAGS } from './lib/server-node-flags';
import { appRoleWanted, handToAppRole } from './lib/app-role';

const ROOT = path.resolve(__dirname, '..');
const REGISTER_TS = path.join(ROOT, 'bin', 'register-ts.js');
const COMPARE_RLS = process.env.BENCH_COMPARE === 'row-level-security';
const resultsFile = (scenario: Scenario) =>
  path.join(__dirname, 'results', `api-read${COMPARE_RLS ? '-rls' : ''}${scenario === 'notes' ? '' : `-${scenario}`}.json`);

type Scenario = 'notes' | 'agent';
const SCENARIOS: readonly Scenario[] = ['notes', 'agent'];
const TENANT_SLUG = 'bench';
const BASE_DOMAIN = 'localhost';

/**
 * The goals of the issues: kernel throughput >= 60% of the baseline's, kernel p99 <= 1.5x
 * the baseline's; against itself without row-level security, within 3% (p99 not a goal).
 */
const GOALS = COMPARE_RLS ? { minThroughputRatio: 0.97, maxP99Ratio: Infinity } : { minThroughputRatio: 0.6, maxP99Ratio: 1.5 };
/** What the two sides are, as the report names them. */
const LABELS = COMPARE_RLS ? { kernel: 'kernel, policies on', baseline: 'kernel, policies off' } : { kernel: 'kernel', baseline: 'baseline (node:http + pg)' };

/**
 * The statements the kernel's ORM sends (captured from the kernel's pg client):
 * MikroORM inlines the values as literals and sends one simple query, so the
 * baseline sends the very same text. Per request only the note's SELECT runs;
 * the tenant and token lookups are cached.
 */
const SQL = {
  /** findByUuid's statement for the note, prepared as the kernel prepares it (core/data/prepared-statements.ts). */
  note: (tenantUuid: string, uuid: string) => ({
    name: 'find-by-uuid.example_notes',
    text: 'select "uuid", "tenant_uuid", "created_at", "updated_at", "title", "body", "extras" from "example_notes" where "uuid" = $1 and "tenant_uuid" = $2 limit 1',
    values: [uuid, tenantUuid],
  }),
  tenant: (slug: string) => `select "t0".* from "tenants" as "t0" where "t0"."slug" = ${literal(slug)} limit 1`,
  /** The agents plugin's one statement for a whole agent, prepared as the kernel prepares it. */
  agent: (tenantUuid: string, uuid: string) => ({ name: agentReader().SELECT_AGENTS.name, text: agentReader().SELECT_AGENTS.text, values: [tenantUuid, [uuid]] }),
  token: (hash: string) => `select "a0".* from "api_tokens" as "a0" where "a0"."token_hash" = ${literal(hash)} and "a0"."revoked_at" is null limit 1`,
};

/** The plugin's own row-to-JSON mapping: the baseline answers byte-identical JSON without the kernel around it. */
const agentReader = () => require('../plugins/agents/agent-reader') as typeof import('../plugins/agents/agent-reader');
const agentJson = (row: Record<string, unknown>) => agentReader().toJson(row);

function literal(value: string): string {
  const { escapeLiteral } = require('pg') as typeof import('pg');
  return escapeLiteral(value);
}

type Message =
  | { type: 'ready'; url: string; poolMax: number; token?: string }
  | { type: 'error'; error: string };

const role = process.argv[2];
if (role === 'kernel') void kernelServer();
else if (role === 'baseline') void baselineServer();
else
  void main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

// ---------------------------------------------------------------------------------------------
// The parent: database, children, checks, load generation, report.
// ---------------------------------------------------------------------------------------------

interface RunResult {
  side: Side;
  round: number;
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  latencyAverage: number;
  /** autocannon's own figures (whole milliseconds). */
  autocannonLatency: { p50: number; p99: number; max: number };
  requests: number;
  /** How long the run really lasted. */
  seconds: number;
  /** CPU time (user + system) the server process spent per request, from /proc (NaN elsewhere). */
  serverCpuUsPerRequest: number | null;
  /**
   * CPU time PostgreSQL's backends spent per request on this side's database (from /proc,
   * so only with the server on this machine; null otherwise): where row-level policies cost.
   */
  databaseCpuUsPerRequest: number | null;
  /** The same for this process, the load generator. */
  loadGeneratorCpuUsPerRequest: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function main(): Promise<void> {
  const settings = {
    duration: numberEnv('BENCH_DURATION', 10),
    warmup: numberEnv('BENCH_WARMUP', 5),
    rounds: numberEnv('BENCH_ROUNDS', 3),
    connections: numberEnv('BENCH_CONNECTIONS', 50),
    rate: numberEnv('BENCH_RATE', 0),
  };
  const { createTestDatabase } = require('../core/testing/test-database') as typeof import('../core/testing/test-database');
  const databases = [await createTestDatabase()];
  if (COMPARE_RLS) databases.push(await createTestDatabase());
  // Row-level policies do not apply to a superuser: the comparison needs a role they apply to.
  const urls = await Promise.all(databases.map((database) => (COMPARE_RLS || appRoleWanted() ? handToAppRole(database.url) : database.url)));
  const children: ChildProcess[] = [];
  try {
    const kernelChild = spawnServer('kernel', {
      BENCH_DATABASE_URL: urls[0],
      BENCH_POOL_MAX: process.env.BENCH_POOL_MAX ?? '',
      BENCH_KERNEL_CONFIG: process.env.BENCH_KERNEL_CONFIG ?? '',
    });
    children.push(kernelChild.child);
    const kernel = await kernelChild.ready;
    const headersOf = (token: string) => ({ host: `${TENANT_SLUG}.${BASE_DOMAIN}`, authorization: `Bearer ${token}` });

    const otherChild = COMPARE_RLS
      ? spawnServer('kernel', {
          BENCH_DATABASE_URL: urls[1],
          BENCH_POOL_MAX: String(kernel.poolMax),
          BENCH_KERNEL_CONFIG: JSON.stringify({ ...JSON.parse(process.env.BENCH_KERNEL_CONFIG || '{}'), databaseRowLevelSecurity: false }),
        })
      : spawnServer('baseline', { BENCH_DATABASE_URL: urls[0], BENCH_POOL_MAX: String(kernel.poolMax) });
    children.push(otherChild.child);
    const other = await otherChild.ready;
    const servers: Servers = {
      kernel: { url: kernel.url, pid: kernelChild.child.pid!, headers: headersOf(kernel.token!), database: databaseCpu(databases[0].url) },
      // The baseline reads the kernel's database with the kernel's token; the other kernel has its own.
      baseline: { url: other.url, pid: otherChild.child.pid!, headers: headersOf(other.token ?? kernel.token!), database: databaseCpu(databases.at(-1)!.url) },
    };

    const chosen = (process.env.BENCH_SCENARIOS ?? SCENARIOS.join(',')).split(',').map((name) => name.trim()) as Scenario[];
    for (const scenario of chosen) {
      if (!SCENARIOS.includes(scenario)) throw new Error(`unknown scenario "${scenario}" (known: ${SCENARIOS.join(', ')})`);
      const kernelPath = await seed(scenario, kernel.url, servers.kernel.headers);
      const paths = { kernel: kernelPath, baseline: COMPARE_RLS ? await seed(scenario, other.url, servers.baseline.headers) : kernelPath };
      await runScenario(scenario, paths, servers, settings, kernel.poolMax);
    }
  } finally {
    await Promise.all(children.map(stopChild));
    for (const database of databases) await database.drop().catch((error) => console.error('dropping the bench database failed:', error));
    const { stopEmbedded } = require('../core/testing/test-database') as typeof import('../core/testing/test-database');
    await stopEmbedded?.().catch(() => {});
  }
}

type Side = 'kernel' | 'baseline';
type Servers = Record<Side, { url: string; pid: number; headers: Record<string, string>; database: DatabaseCpu }>;
type Settings = { duration: number; warmup: number; rounds: number; connections: number; rate: number };

/** Seeds the scenario's resource through the API itself and returns its path. */
async function seed(scenario: Scenario, kernelUrl: string, headers: Record<string, string>): Promise<string> {
  const call = async (method: string, urlPath: string, body: unknown, expected: number) => {
    const res = await request(`${kernelUrl}${urlPath}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== expected) throw new Error(`seeding: ${method} ${urlPath} answered ${res.status} ${res.body}`);
    return JSON.parse(res.body.toString()).data;
  };
  if (scenario === 'notes') {
    const note = await call('POST', '/api/v1/notes', { title: 'Call back', body: 'Ask about the renewal; they want the annual plan with two extra seats.' }, 201);
    return `/api/v1/notes/${note.uuid}`;
  }
  const agent = await call('POST', '/api/v1/agents', { name: 'Reception', role: 'Receptionist of a dental clinic', language: 'en-US', timezone: 'Europe/Madrid' }, 201);
  const target = await call('POST', '/api/v1/agents', { name: 'Sales' }, 201);
  const base = `/api/v1/agents/${agent.agent_uuid}`;
  const intents: string[] = [];
  for (let i = 0; i < 10; i++) {
    const body = { key: `tool_${i}`, name: `Tool ${i}`, description: 'When the caller asks for it', webhook: { url: `https://crm.example.com/hooks/${i}`, auth_token: 'token' }, parameters: [{ key: 'email', type: 'string', required: true }] };
    intents.push((await call('POST', `${base}/intents`, body, 200)).intents[i].intent_uuid);
  }
  for (let i = 0; i < 5; i++) await call('POST', `${base}/webhooks`, { url: `https://example.com/hooks/${i}`, events: ['agent.updated'], secret: 'a-signing-secret-for-the-bench' }, 200);
  for (let i = 0; i < 3; i++) await call('POST', `${base}/phone-numbers`, { number: `+1415555010${i}`, country_code: 'US' }, 200);
  const text = (what: string, i: number) => `${what} ${i}: a sentence of ordinary length that an operator would write for an agent.`;
  await call(
    'PUT',
    base,
    {
      guidelines: Array.from({ length: 20 }, (_, i) => ({ content: text('Guideline', i), order: i + 1 })),
      notes: Array.from({ length: 20 }, (_, i) => ({ content: text('Note', i), order: i + 1 })),
      procedures: Array.from({ length: 5 }, (_, p) => ({
        name: `Procedure ${p}`,
        description: text('Procedure', p),
        steps: Array.from({ length: 5 }, (_, s) => ({ order: s + 1, description: text('Step', s), intent_uuid: intents[(p + s) % intents.length] })),
      })),
      training: Array.from({ length: 50 }, (_, i) => ({ content: text('Question', i), intent: 'pricing', response: text('Answer', i) })),
      routing_rules: Array.from({ length: 10 }, (_, i) => ({ department_name: `Department ${i}`, phrases: ['talk to someone'], destination_type: 'agent', destination_agent_uuid: target.agent_uuid, priority: i })),
      guard_rules: Array.from({ length: 5 }, (_, i) => ({ name: `Guard ${i}`, when_condition: text('Condition', i), then_action: 'end_conversation', say_before_end: 'Goodbye.' })),
    },
    200,
  );
  return base;
}

async function runScenario(scenario: Scenario, paths: Record<Side, string>, servers: Servers, settings: Settings, poolMax: number): Promise<void> {
  if (COMPARE_RLS) await checkSameShape(servers, paths);
  else await checkEquivalence(servers.kernel.url, servers.baseline.url, paths.kernel, servers.kernel.headers);
  const resourcePath = paths.kernel;

  const run = (side: Side, seconds: number, round: number) =>
    measure(side, round, `${servers[side].url}${paths[side]}`, servers[side].headers, settings.connections, settings.rate, seconds, servers[side].pid, servers[side].database);

  console.log(
    `api-read${COMPARE_RLS ? ' (row-level security on vs off)' : ''} ${scenario}: GET ${resourcePath}, ${settings.connections} connections${settings.rate ? ` at a fixed ${settings.rate} req/s` : ''}, pool ${poolMax}, ` +
      `${settings.rounds} rounds x ${settings.duration}s per side after ${settings.warmup}s warm-up per side (${os.cpus().length} CPUs, node ${process.version})`,
  );
  if (settings.warmup > 0) {
    await run('kernel', settings.warmup, 0);
    await run('baseline', settings.warmup, 0);
  }
  const runs: RunResult[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const order: Side[] = round % 2 === 1 ? ['kernel', 'baseline'] : ['baseline', 'kernel'];
    for (const side of order) {
      const result = await run(side, settings.duration, round);
      runs.push(result);
      console.log(
        `  round ${round} ${LABELS[side].padEnd(26)} ${fmt(result.requestsPerSecond, 0).padStart(7)} req/s  ` +
          `p50 ${fmt(result.latencyP50)} ms  p99 ${fmt(result.latencyP99)} ms  server CPU ${result.serverCpuUsPerRequest === null ? '?' : fmt(result.serverCpuUsPerRequest, 0)} us/req  database CPU ${result.databaseCpuUsPerRequest === null ? '?' : fmt(result.databaseCpuUsPerRequest, 0)} us/req  ` +
          `(${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`,
      );
    }
  }

  const failed = runs.filter((r) => r.non2xx > 0 || r.errors > 0 || r.timeouts > 0);
  const summary = (side: 'kernel' | 'baseline') => {
    const mine = runs.filter((r) => r.side === side);
    return {
      requestsPerSecond: median(mine.map((r) => r.requestsPerSecond)),
      latencyP50: median(mine.map((r) => r.latencyP50)),
      latencyP99: median(mine.map((r) => r.latencyP99)),
      serverCpuUsPerRequest: median(mine.map((r) => r.serverCpuUsPerRequest ?? NaN)),
      databaseCpuUsPerRequest: median(mine.map((r) => r.databaseCpuUsPerRequest ?? NaN)),
    };
  };
  const k = summary('kernel');
  const b = summary('baseline');
  const throughputRatio = k.requestsPerSecond / b.requestsPerSecond;
  const p99Ratio = k.latencyP99 / b.latencyP99;
  const goals = {
    throughput: { goal: `>= ${GOALS.minThroughputRatio}`, ratio: round3(throughputRatio), met: throughputRatio >= GOALS.minThroughputRatio },
    p99: { goal: `<= ${GOALS.maxP99Ratio}`, ratio: round3(p99Ratio), met: p99Ratio <= GOALS.maxP99Ratio },
  };

  console.log('');
  console.log(`median of ${settings.rounds} runs per side      req/s       p50        p99   server CPU/req  database CPU/req`);
  const line = (name: string, x: typeof k) =>
    console.log(
      `  ${name.padEnd(26)}${fmt(x.requestsPerSecond, 0).padStart(8)}  ${fmt(x.latencyP50).padStart(6)} ms  ${fmt(x.latencyP99).padStart(6)} ms  ` +
        `${fmt(x.serverCpuUsPerRequest, 0).padStart(6)} us  ${fmt(x.databaseCpuUsPerRequest, 0).padStart(10)} us`,
    );
  line(LABELS.kernel, k);
  line(LABELS.baseline, b);
  const ratioName = COMPARE_RLS ? 'on/off' : 'kernel/baseline';
  console.log(`  ${ratioName} throughput  ${fmt(throughputRatio * 100, 1)}%  (goal >= ${GOALS.minThroughputRatio * 100}%): ${goals.throughput.met ? 'MET' : 'MISSED'}`);
  console.log(`  ${ratioName} p99         ${fmt(p99Ratio, 2)}x${COMPARE_RLS ? '' : `  (goal <= ${GOALS.maxP99Ratio}x): ${goals.p99.met ? 'MET' : 'MISSED'}`}`);
  if (COMPARE_RLS) {
    console.log(`  on/off server CPU per request    ${fmt(k.serverCpuUsPerRequest / b.serverCpuUsPerRequest, 3)}x`);
    console.log(`  on/off database CPU per request  ${fmt(k.databaseCpuUsPerRequest / b.databaseCpuUsPerRequest, 3)}x`);
  }
  if (failed.length > 0) console.log(`  WARNING: ${failed.length} run(s) had non-2xx answers, errors or timeouts; the figures are not valid`);

  fs.mkdirSync(path.dirname(resultsFile(scenario)), { recursive: true });
  fs.writeFileSync(
    resultsFile(scenario),
    JSON.stringify(
      {
        bench: 'api-read',
        compare: COMPARE_RLS ? 'row-level-security' : 'baseline',
        sides: LABELS,
        scenario,
        date: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        request: `GET ${resourcePath}`,
        settings: { ...settings, poolMax },
        kernel: k,
        baseline: b,
        throughputRatio: round3(throughputRatio),
        p99Ratio: round3(p99Ratio),
        goals,
        valid: failed.length === 0,
        runs,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`  results written to ${path.relative(process.cwd(), resultsFile(scenario))}`);
  if (failed.length > 0) process.exitCode = 1;
  else if (process.env.BENCH_ENFORCE === '1' && !(goals.throughput.met && goals.p99.met)) process.exitCode = 1;
}

/**
 * The row-level security comparison: two kernels over databases seeded alike answer the
 * same JSON but for the ids and times the seeding gave each.
 */
async function checkSameShape(servers: Servers, paths: Record<Side, string>): Promise<void> {
  const [on, off] = await Promise.all((['kernel', 'baseline'] as const).map((side) => request(servers[side].url + paths[side], { headers: servers[side].headers })));
  if (on.status !== 200 || off.status !== 200) throw new Error(`expected 200 from both kernels, got ${on.status} ${on.body}, ${off.status} ${off.body}`);
  const blank = (body: Buffer) => body.toString().replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'x');
  if (blank(on.body) !== blank(off.body)) throw new Error(`the kernels' answers differ beyond ids and times:\n  on:  ${on.body}\n  off: ${off.body}`);
  console.log(`shape check: both kernels answer 200 with ${on.body.length} and ${off.body.length} bytes of the same JSON but for ids and times`);
}

/** Both servers must give the same answers before their speed is compared. */
async function checkEquivalence(kernelUrl: string, baselineUrl: string, resourcePath: string, headers: Record<string, string>): Promise<void> {
  const both = (urlPath: string, h: Record<string, string>) => Promise.all([request(kernelUrl + urlPath, { headers: h }), request(baselineUrl + urlPath, { headers: h })]);

  const [k, b] = await both(resourcePath, headers);
  if (k.status !== 200 || b.status !== 200) throw new Error(`expected 200 from both, got kernel ${k.status} ${k.body}, baseline ${b.status} ${b.body}`);
  if (!k.body.equals(b.body)) throw new Error(`the bodies differ:\n  kernel:   ${k.body}\n  baseline: ${b.body}`);
  if (k.headers['content-type'] !== b.headers['content-type']) {
    throw new Error(`content types differ: kernel ${k.headers['content-type']}, baseline ${b.headers['content-type']}`);
  }
  const resource = JSON.parse(k.body.toString()).data;
  if (!resource || (resource.uuid ?? resource.agent_uuid) !== resourcePath.split('/').pop()) throw new Error(`unexpected body ${k.body.subarray(0, 500)}`);
  console.log(`equivalence check: both answer 200 with the same ${k.body.length} bytes: ${k.body.subarray(0, 200)}${k.body.length > 200 ? '...' : ''}`);

  // The baseline does not skip the checks the kernel makes: unknown id, other tenant, bad or missing token.
  const otherUuid = crypto.randomUUID();
  const cases: Array<[string, string, Record<string, string>]> = [
    ['unknown id', resourcePath.replace(/[^/]+$/, otherUuid), headers],
    ['unknown tenant', resourcePath, { ...headers, host: `nobody.${BASE_DOMAIN}` }],
    ['wrong token', resourcePath, { ...headers, authorization: 'Bearer sbt_wrong' }],
    ['no token', resourcePath, { host: headers.host }],
  ];
  for (const [name, urlPath, h] of cases) {
    const [kk, bb] = await both(urlPath, h);
    if (kk.status !== bb.status) throw new Error(`${name}: kernel answers ${kk.status}, baseline ${bb.status}`);
  }
}

async function measure(
  side: Side,
  round: number,
  url: string,
  headers: Record<string, string>,
  connections: number,
  rate: number,
  duration: number,
  serverPid: number,
  database: DatabaseCpu,
): Promise<RunResult> {
  const autocannon: (options: Record<string, unknown>) => import('node:events').EventEmitter & PromiseLike<any> = require('autocannon');
  const instance = autocannon({ url, connections, duration, headers, method: 'GET', ...(rate > 0 ? { overallRate: rate } : {}) });
  // autocannon's own percentiles are whole milliseconds; keep every 2xx latency for exact ones.
  const latencies: number[] = [];
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const cpuBefore = processCpuMs(serverPid);
  const databaseBefore = await database.sample();
  const loadBefore = process.cpuUsage();
  const result = await instance;
  const serverCpuMs = processCpuMs(serverPid) - cpuBefore;
  const databaseCpuMs = database.since(databaseBefore, await database.sample());
  const load = process.cpuUsage(loadBefore);
  latencies.sort((a, b) => a - b);
  return {
    side,
    round,
    requestsPerSecond: result.requests.average,
    latencyP50: percentile(latencies, 50),
    latencyP99: percentile(latencies, 99),
    latencyAverage: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
    autocannonLatency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    seconds: result.duration,
    serverCpuUsPerRequest: Number.isFinite(serverCpuMs) ? round3((serverCpuMs * 1000) / Math.max(1, result.requests.total)) : null,
    databaseCpuUsPerRequest: databaseCpuMs === null ? null : round3((databaseCpuMs * 1000) / Math.max(1, result.requests.total)),
    loadGeneratorCpuUsPerRequest: round3((load.user + load.system) / Math.max(1, result.requests.total)),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

interface DatabaseCpu {
  /** Each backend on the database and its CPU ms so far; null when they cannot be read. */
  sample(): Promise<Map<number, number> | null>;
  /** CPU ms the backends spent between two samples (a backend that started between them counts from 0). */
  since(before: Map<number, number> | null, after: Map<number, number> | null): number | null;
}

/** The CPU of PostgreSQL's backends serving one database, found as a superuser through pg_stat_activity. */
function databaseCpu(superuserUrl: string): DatabaseCpu {
  const { Client } = require('pg') as typeof import('pg');
  const name = new URL(superuserUrl).pathname.slice(1);
  const server = new URL(superuserUrl);
  server.pathname = '/postgres';
  return {
    async sample() {
      const client = new Client({ connectionString: server.toString() });
      await client.connect();
      try {
        const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name]);
        const cpu = new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)]));
        return [...cpu.values()].every(Number.isFinite) ? cpu : null;
      } finally {
        await client.end();
      }
    },
    since(before, after) {
      if (!before || !after) return null;
      let total = 0;
      for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
      return total;
    },
  };
}

/** utime + stime of a process in ms, from /proc/<pid>/stat (Linux); NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

function spawnServer(which: 'kernel' | 'baseline', env: Record<string, string>): { child: ChildProcess; ready: Promise<Extract<Message, { type: 'ready' }>> } {
  const extra = (process.env[which === 'kernel' ? 'BENCH_KERNEL_NODE_OPTIONS' : 'BENCH_BASELINE_NODE_OPTIONS'] ?? '').split(/\s+/).filter(Boolean);
  const child = fork(__filename, [which], {
    // Both sides run with the Node.js flags a deployed server has, so the code is the difference.
    execArgv: ['-r', REGISTER_TS, ...SERVER_NODE_FLAGS, ...extra],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = new Promise<Extract<Message, { type: 'ready' }>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${which} server exited with ${code} before it was ready`)));
    child.on('message', (message: Message) => {
      if (message.type === 'ready') resolve(message);
      else reject(new Error(`the ${which} server failed: ${message.error}`));
    });
  });
  return { child, ready };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('stop');
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Child: the real kernel with the notes example plugin.
// ---------------------------------------------------------------------------------------------

async function kernelServer(): Promise<void> {
  try {
    const { Kernel } = require('../core/kernel/kernel') as typeof import('../core/kernel/kernel');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
    const overrides = process.env.BENCH_KERNEL_CONFIG ? JSON.parse(process.env.BENCH_KERNEL_CONFIG) : {};
    const kernel = await Kernel.boot({
      role: 'serve',
      plugins: [path.join(ROOT, 'examples', 'plugins', 'notes'), path.join(ROOT, 'plugins', 'agents')],
      // Only what is set here: the host's environment must not change what is measured.
      env: {},
      migrate: true,
      config: {
        port: 0,
        host: '127.0.0.1',
        baseDomain: BASE_DOMAIN,
        databaseUrl: process.env.BENCH_DATABASE_URL,
        dataDir,
        // Required with DATABASE_URL (the agent's webhooks and intents store secrets).
        secretsKey: crypto.randomBytes(32).toString('base64'),
        ...(process.env.BENCH_POOL_MAX ? { databasePoolMax: Number(process.env.BENCH_POOL_MAX) } : {}),
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
    process.send!({ type: 'ready', url: kernel.url, poolMax: kernel.config.core.databasePoolMax, token } satisfies Message);
  } catch (error) {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies Message);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Child: the baseline, raw node:http + pg.
// ---------------------------------------------------------------------------------------------

/**
 * The least a correct server must do for the same answer: find the tenant from the
 * Host subdomain and the token from its SHA-256 (both cached for the kernel's default
 * AUTH_CACHE_TTL_MS, as the kernel does), check the token's tenant and scope, check
 * the id is a uuid, then run the kernel's SELECT with the kernel's parameters and
 * serialise the row as the notes plugin does.
 */
async function baselineServer(): Promise<void> {
  try {
    const { Pool } = require('pg') as typeof import('pg');
    const pool = new Pool({
      connectionString: process.env.BENCH_DATABASE_URL,
      max: Number(process.env.BENCH_POOL_MAX),
      min: 0,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
    });
    const TTL_MS = 5000;
    const cache = new Map<string, { value: any; expires: number }>();
    const cached = async <T>(key: string, load: () => Promise<T>): Promise<T> => {
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.expires > now) return hit.value;
      const value = await load();
      cache.set(key, { value, expires: now + TTL_MS });
      return value;
    };
    const tenantOf = (slug: string) => cached(`t:${slug}`, async () => (await pool.query(SQL.tenant(slug))).rows[0]?.uuid as string | undefined);
    const tokenOf = (hash: string) =>
      cached(`k:${hash}`, async () => (await pool.query(SQL.token(hash))).rows[0] as { tenant_uuid: string; scopes: string[] } | undefined);
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const suffix = `.${BASE_DOMAIN}`;

    const send = (res: http.ServerResponse, status: number, payload: unknown) => {
      const body = JSON.stringify(payload);
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    };
    const server = http.createServer(async (req, res) => {
      try {
        const match = req.method === 'GET' ? /^\/api\/v1\/(notes|agents)\/([^/?#]+)(?:\?.*)?$/.exec(req.url ?? '') : null;
        if (!match) return send(res, 404, { success: false, message: 'Not found' });
        const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
        const slug = host.endsWith(suffix) ? host.slice(0, -suffix.length) : '';
        const tenantUuid = slug && !slug.includes('.') ? await tenantOf(slug) : undefined;
        if (!tenantUuid) return send(res, 404, { success: false, message: 'Tenant not found' });
        const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!bearer) return send(res, 401, { success: false, message: 'Missing bearer token' });
        const token = await tokenOf(crypto.createHash('sha256').update(bearer).digest('hex'));
        if (!token || token.tenant_uuid !== tenantUuid) return send(res, 401, { success: false, message: 'Invalid or revoked token' });
        if (!token.scopes.includes('read')) return send(res, 403, { success: false, message: 'Forbidden' });
        const uuid = decodeURIComponent(match[2]);
        if (!UUID.test(uuid)) return send(res, 400, { success: false, message: 'Invalid uuid' });
        if (match[1] === 'agents') {
          const { rows: agents } = await pool.query(SQL.agent(tenantUuid, uuid));
          if (!agents[0]) return send(res, 404, { success: false, message: 'Agent not found' });
          return send(res, 200, { data: agentJson(agents[0]) });
        }

        const { rows } = await pool.query(SQL.note(tenantUuid, uuid));
        const note = rows[0];
        if (!note) return send(res, 404, { success: false, message: 'Note not found' });
        send(res, 200, {
          data: {
            uuid: note.uuid,
            title: note.title,
            body: note.body,
            extras: note.extras,
            created_at: note.created_at.toISOString(),
            updated_at: note.updated_at.toISOString(),
          },
        });
      } catch (error) {
        send(res, 500, { success: false, message: String(error) });
      }
    });
    server.keepAliveTimeout = 65_000; // as the kernel's HttpServer
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    process.on('message', async (message) => {
      if (message !== 'stop') return;
      server.closeAllConnections();
      server.close();
      await pool.end();
      process.exit(0);
    });
    process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, poolMax: Number(process.env.BENCH_POOL_MAX) } satisfies Message);
  } catch (error) {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies Message);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------

