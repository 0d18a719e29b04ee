/**
 * bench/export: the message export read through the API, page by page with its cursor,
 * against a raw keyset SELECT of the same rows with the same page size, in the same run.
 *
 *   node -r ./bin/register-ts.js bench/export.ts      (npm run bench:export)
 *
 * Setup: a fresh installation (its own database, migrated, tenant `bench`) and one
 * `switchboard serve` child. EXPORT_BENCH_ROWS messages (1,000,000 by default) are
 * written by SQL (generate_series, lib/export-seed.ts) for that tenant: 100 messages
 * per conversation, one session each, the six channels in turn, two messages per
 * millisecond (so equal instants are common and the uuid breaks the tie), content of
 * 60-90 characters. Then VACUUM ANALYZE, so neither side pays for hint bits or plans
 * on stale statistics.
 *
 * Each round, in turn:
 * (a) Raw: `pg` in this process runs the keyset SELECT of the 11 row columns
 *     `where tenant_uuid = $1 and (created_at, uuid) > ($2, $3) order by created_at,
 *     uuid limit 1000` until a page comes back short, as named prepared statements
 *     (planned once, as the export's own). `created_at` stays text (exact, no Date
 *     parsing): the cheapest correct way to read the rows with pg.
 * (b) API: GET /api/v1/analytics/messages?limit=1000, then with each next_cursor until
 *     has_more is false, over one keep-alive connection; each body parsed with JSON.parse
 *     (a client gets its rows as objects, as pg hands them to (a)).
 * rows/s = rows / wall time of the whole pass. Both passes must return every row.
 * Goal (issue 7): API >= 50% of raw. Medians over the rounds are reported.
 * (c) Once, after the rounds: the API under the `masked` policy (content `***`), and
 *     both sides with a channel filter (`channel=chat`, the channel index).
 *
 * Environment:
 *   DATABASE_URL         PostgreSQL server for the bench database (default postgresql://postgres@127.0.0.1:5432/postgres)
 *   EXPORT_BENCH_ROWS    messages to seed (default 1000000)
 *   BENCH_ROUNDS         rounds of (a) and (b) (default 3)
 *   BENCH_NODE_FLAGS     extra node flags for the switchboard child (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
 *   BENCH_ENFORCE=1      exit 1 when the goal is missed
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, types } from 'pg';
import { fmt, median, numberEnv, printTable, round3 } from './lib/bench-stats';
import { seedMessages } from './lib/export-seed';
import { CLI, removeInstallation, jsonRequest, prepareInstallation, stopChildren, waitReady, type BenchInstallation, SERVER_NODE_FLAGS } from './lib/switchboard-process';

const RESULTS_FILE = path.join(__dirname, 'results', 'export.json');
const SERVER_URL = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const ROWS = numberEnv('EXPORT_BENCH_ROWS', 1_000_000);
const ROUNDS = Math.max(1, numberEnv('BENCH_ROUNDS', 3));
const PAGE = 1000;
const TENANT = 'bench';

const GOALS = { minApiToRawRatio: 0.5 };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** (a) The raw keyset SELECT, page after page; rows read and rows/s. */
async function rawPass(db: Client, tenantUuid: string, channel: string | null = null): Promise<{ rows: number; rate: number; lastUuid: string | null }> {
  const columns = 'uuid, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content, created_at';
  const filter = channel === null ? '' : 'and channel = $4';
  const first = `select ${columns} from conversation_messages where tenant_uuid = $1 ${channel === null ? '' : 'and channel = $2'} order by created_at, uuid limit ${PAGE}`;
  const next = `select ${columns} from conversation_messages where tenant_uuid = $1 and (created_at, uuid) > ($2, $3) ${filter} order by created_at, uuid limit ${PAGE}`;
  const started = performance.now();
  let rows = 0;
  const named = (name: string, text: string, values: unknown[]) => ({ name: `bench.${name}.${channel ?? 'all'}`, text, values });
  let page = (await db.query(named('first', first, channel === null ? [tenantUuid] : [tenantUuid, channel]))).rows;
  let last: any = null;
  for (;;) {
    rows += page.length;
    if (page.length > 0) last = page[page.length - 1];
    if (page.length < PAGE) break;
    page = (await db.query(named('next', next, channel === null ? [tenantUuid, last.created_at, last.uuid] : [tenantUuid, last.created_at, last.uuid, channel]))).rows;
  }
  return { rows, rate: rows / ((performance.now() - started) / 1000), lastUuid: last?.uuid ?? null };
}

function get(setup: BenchInstallation, requestPath: string): Promise<{ status: number; body: any }> {
  return request(setup, 'GET', requestPath);
}

function request(setup: BenchInstallation, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return jsonRequest({ port: setup.port, agent, tenantSlug: TENANT, token: setup.token }, method, requestPath, body);
}

/** (b) The API, cursor after cursor until has_more is false; rows read and rows/s. */
async function apiPass(setup: BenchInstallation, channel: string | null = null): Promise<{ rows: number; rate: number; lastUuid: string | null; masked: number }> {
  const base = `/api/v1/analytics/messages?limit=${PAGE}${channel === null ? '' : `&channel=${channel}`}`;
  const started = performance.now();
  let rows = 0;
  let masked = 0;
  let lastUuid: string | null = null;
  let cursor: string | null = null;
  for (;;) {
    const res = await get(setup, cursor === null ? base : `${base}&cursor=${encodeURIComponent(cursor)}`);
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    const messages: Array<{ message_uuid: string; content: string }> = res.body.messages;
    rows += messages.length;
    if (messages.length > 0) {
      lastUuid = messages[messages.length - 1].message_uuid;
      if (messages[0].content === '***') masked += messages.length;
    }
    if (!res.body.pagination.has_more) break;
    cursor = res.body.pagination.next_cursor;
  }
  return { rows, rate: rows / ((performance.now() - started) / 1000), lastUuid, masked };
}

function check(what: string, result: { rows: number; lastUuid: string | null }, expected: { rows: number; lastUuid: string | null }): void {
  if (result.rows !== expected.rows || result.lastUuid !== expected.lastUuid) {
    throw new Error(`${what} read ${result.rows} rows ending at ${result.lastUuid}; expected ${expected.rows} ending at ${expected.lastUuid}`);
  }
}

async function main() {
  const setup = await prepareInstallation({ serverUrl: SERVER_URL, prefix: 'sb_bench_export', tenant: TENANT });
  let child: ChildProcess | undefined;
  // created_at as PostgreSQL writes it: exact, and cheaper than building a Date per row.
  const db = new Client({
    connectionString: setup.databaseUrl,
    types: { getTypeParser: ((oid: number, format: any) => (oid === types.builtins.TIMESTAMPTZ ? (value: string) => value : types.getTypeParser(oid, format))) as any },
  });
  await db.connect();
  try {
    console.log(`bench/export: ${ROWS} messages, pages of ${PAGE}, ${ROUNDS} rounds`);
    const seedStarted = performance.now();
    await seedMessages(db, setup.tenantUuid, ROWS, (done) => process.stdout.write(`\r  seeded ${done} / ${ROWS} messages`));
    process.stdout.write('\n');
    console.log(`  seeded and vacuumed in ${fmt((performance.now() - seedStarted) / 1000, 1)} s`);

    const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, CLI, 'serve'], { env: setup.env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitReady(setup.port);

    // Warm-up: one pass of each, so both read a table already in memory.
    const expected = await rawPass(db, setup.tenantUuid);
    if (expected.rows !== ROWS) throw new Error(`the raw pass read ${expected.rows} of ${ROWS} rows`);
    check('the API warm-up pass', await apiPass(setup), expected);

    const raws: number[] = [];
    const apis: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const raw = await rawPass(db, setup.tenantUuid);
      check('the raw pass', raw, expected);
      const api = await apiPass(setup);
      check('the API pass', api, expected);
      raws.push(raw.rate);
      apis.push(api.rate);
      console.log(`round ${round}: raw ${fmt(raw.rate, 0)} rows/s, API ${fmt(api.rate, 0)} rows/s (${fmt(api.rate / raw.rate)})`);
    }

    // (c) Channel filter, both sides; then the masked policy.
    const rawChat = await rawPass(db, setup.tenantUuid, 'chat');
    const apiChat = await apiPass(setup, 'chat');
    check('the API pass with channel=chat', apiChat, rawChat);
    const put = await request(setup, 'PUT', '/api/v1/settings/message-export', { policy: 'masked' });
    if (put.status !== 200) throw new Error(`PUT policy answered ${put.status}`);
    const masked = await apiPass(setup);
    check('the masked API pass', masked, expected);
    if (masked.masked !== ROWS) throw new Error(`the masked pass returned ${ROWS - masked.masked} rows with content`);
    await request(setup, 'PUT', '/api/v1/settings/message-export', { policy: 'enabled' });

    const rawRate = median(raws);
    const apiRate = median(apis);
    const result = {
      measured_at: new Date().toISOString(),
      rows: ROWS,
      page: PAGE,
      rounds: ROUNDS,
      raw_rows_per_s: round3(rawRate),
      api_rows_per_s: round3(apiRate),
      ratio: round3(apiRate / rawRate),
      rounds_raw_rows_per_s: raws.map(round3),
      rounds_api_rows_per_s: apis.map(round3),
      channel_filter: { rows: rawChat.rows, raw_rows_per_s: round3(rawChat.rate), api_rows_per_s: round3(apiChat.rate), ratio: round3(apiChat.rate / rawChat.rate) },
      masked_api_rows_per_s: round3(masked.rate),
      goals: GOALS,
    };
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2));

    const lines: Array<[string, string, string]> = [
      [`raw keyset SELECT (pg, pages of ${PAGE})`, `${fmt(rawRate, 0)} rows/s`, ''],
      ['export via API (cursor pages)', `${fmt(apiRate, 0)} rows/s`, ''],
      ['API / raw', fmt(apiRate / rawRate), `>= ${GOALS.minApiToRawRatio}`],
      [`channel=chat (${rawChat.rows} rows): raw`, `${fmt(rawChat.rate, 0)} rows/s`, ''],
      ['channel=chat: API', `${fmt(apiChat.rate, 0)} rows/s`, ''],
      ['channel=chat: API / raw', fmt(apiChat.rate / rawChat.rate), ''],
      ['API under the masked policy', `${fmt(masked.rate, 0)} rows/s`, ''],
    ];
    printTable(lines, 16);
    if (apiRate / rawRate < GOALS.minApiToRawRatio && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
  } finally {
    await db.end();
    if (child) await stopChildren([child]);
    agent.destroy();
    await removeInstallation(SERVER_URL, setup);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
