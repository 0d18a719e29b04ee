/**
 * bench/outreach: contacts uploaded to a listing through the API, 1,000 items a call,
 * against raw multi-row `INSERT ... ON CONFLICT` statements of the same rows, in the same run.
 *
 *   node -r ./bin/register-ts.js bench/outreach.ts      (npm run bench:outreach)
 *
 * Setup: a fresh installation (its own database, migrated) and one `switchboard serve`
 * child: `POST /api/v1/listings/{uuid}/contacts` does all its work in the request (parse
 * and normalize the items, lock and read the contacts they match, write contacts and
 * listing memberships, in one transaction), so no worker is needed. The contacts
 * (lib/outreach-items.ts): OUTREACH_BENCH_CONTACTS of them (100,000 by default), each
 * with the spec's listing contact members (name, surname, phone_number as a valid
 * Spanish mobile in E.164, email, timezone, country_code, company, city, lead_source)
 * and one custom member, `budget`; phone numbers and emails all distinct.
 *
 * Each round uses new tenants, so both sides insert new contacts, in turn:
 * (a) Raw: `pg` in this process sends the rows, already normalized (no parsing), to the
 *     real `contacts` table of a tenant of its own, 1,000 rows a statement:
 *     `insert ... values (...), ... on conflict (tenant_uuid, phone_number) do update set ...`,
 *     as named prepared statements (planned once), each statement its own transaction.
 * (b) API: POST /api/v1/listings/{uuid}/contacts with 1,000 items a call, one call after
 *     another over one keep-alive connection, to a plain listing (no pool) of a tenant
 *     of its own. Each answer must report every item created (or updated), none failed.
 * (b') The same into a listing attached to a pool of a draft campaign (another tenant):
 *     the contacts also join the pool (no tasks: the campaign is not running).
 * contacts/s = contacts / wall time of the whole pass. Goal (issue 8): (b) >= 40% of (a).
 * (a) writes the contacts only; (b) also reads (and locks) the contacts the items match
 * and writes one listing membership per contact, as the route must.
 * Then (updates) the same contacts sent again by both sides, with `lead_source` and
 * `budget` changed so every item really updates its contact: (a) into the raw tenant,
 * (b) into the plain listing.
 * After each round the rows written are checked (count, values), then deleted and the
 * tables vacuumed, so every round starts from the same tables. Medians over the rounds.
 *
 * Environment:
 *   DATABASE_URL              PostgreSQL server for the bench database (default postgresql://postgres@127.0.0.1:5432/postgres)
 *   OUTREACH_BENCH_CONTACTS   contacts per pass (default 100000)
 *   OUTREACH_BENCH_POOL=0     skip (b'), the listing with a pool
 *   OUTREACH_BENCH_UPDATES=0  skip the update passes
 *   BENCH_ROUNDS              rounds (default 3)
 *   BENCH_NODE_FLAGS          extra node flags for the switchboard child (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
 *   BENCH_ENFORCE=1           exit 1 when the goal is missed
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { v7 as uuidV7 } from 'uuid';
import { fmt, median, numberEnv, percentile, printTable, round3 } from './lib/bench-stats';
import { listingItems, RAW_COLUMNS, rawValues, type ListingItem } from './lib/outreach-items';
import { CLI, cli, removeInstallation, jsonRequest, prepareInstallation, stopChildren, waitReady, type BenchInstallation, SERVER_NODE_FLAGS } from './lib/switchboard-process';

const RESULTS_FILE = path.join(__dirname, 'results', 'outreach.json');
const SERVER_URL = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const CONTACTS = Math.max(1, numberEnv('OUTREACH_BENCH_CONTACTS', 100_000));
const ROUNDS = Math.max(1, numberEnv('BENCH_ROUNDS', 3));
const WITH_POOL = process.env.OUTREACH_BENCH_POOL !== '0';
const WITH_UPDATES = process.env.OUTREACH_BENCH_UPDATES !== '0';
const BATCH = 1000;
const WARM_UP = Math.min(CONTACTS, 5 * BATCH);

const GOALS = { minApiToRawRatio: 0.4 };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** A tenant of the bench installation: its slug (the Host the API is called with), uuid and token. */
interface Tenant {
  slug: string;
  uuid: string;
  token: string;
}

async function createTenant(setup: BenchInstallation, slug: string): Promise<Tenant> {
  const created = JSON.parse(await cli(['tenant', 'create', slug], setup.env));
  return { slug, uuid: created.tenant.uuid, token: created.token };
}

/** One JSON request to the child, as `tenant`. */
function request(setup: BenchInstallation, tenant: Tenant, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return jsonRequest({ port: setup.port, agent, tenantSlug: tenant.slug, token: tenant.token }, method, requestPath, body);
}

async function created(setup: BenchInstallation, tenant: Tenant, requestPath: string, body: unknown): Promise<any> {
  const res = await request(setup, tenant, 'POST', requestPath, body);
  if (res.status !== 201) throw new Error(`POST ${requestPath} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.data;
}

/** A listing of `tenant`: plain, or attached to a pool of a new draft campaign (of a new agent). */
async function createListing(setup: BenchInstallation, tenant: Tenant, withPool: boolean): Promise<{ listing: string; pool: string | null }> {
  if (!withPool) return { listing: (await created(setup, tenant, '/api/v1/listings', { name: 'Bench fair' })).uuid, pool: null };
  const agentUuid: string = (await created(setup, tenant, '/api/v1/agents', { name: 'Bench agent' })).agent_uuid;
  const campaign = await created(setup, tenant, '/api/v1/campaigns', { name: 'Bench campaign', agent_uuid: agentUuid, task_type: 'follow_up' });
  if (campaign.status !== 'draft') throw new Error(`a new campaign is ${campaign.status}, not draft`);
  const pool: string = (await created(setup, tenant, '/api/v1/pools', { campaign_uuid: campaign.uuid, name: 'Bench pool' })).uuid;
  return { listing: (await created(setup, tenant, '/api/v1/listings', { name: 'Bench fair', pool_uuid: pool })).uuid, pool };
}

const upsertTexts = new Map<number, string>();

/** The raw upsert of `rows` rows: one multi-row INSERT ... ON CONFLICT, as the statement text a named statement is prepared from (built once per size). */
function rawUpsertText(rows: number): string {
  let text = upsertTexts.get(rows);
  if (text === undefined) upsertTexts.set(rows, (text = buildUpsertText(rows)));
  return text;
}

function buildUpsertText(rows: number): string {
  const perRow = 1 + RAW_COLUMNS.length;
  const tuples = Array.from({ length: rows }, (_, row) => {
    const at = 2 + row * perRow;
    const values = RAW_COLUMNS.map((column, i) => (column === 'custom_fields' ? `$${at + 1 + i}::jsonb` : `$${at + 1 + i}`));
    return `($${at}, $1, now(), now(), ${values.join(', ')}, false)`;
  });
  const updated = RAW_COLUMNS.filter((column) => column !== 'phone_number' && column !== 'custom_fields').map((column) => `${column} = excluded.${column}`);
  return (
    `insert into contacts (uuid, tenant_uuid, created_at, updated_at, ${RAW_COLUMNS.join(', ')}, opted_out) values ${tuples.join(', ')} ` +
    `on conflict (tenant_uuid, phone_number) do update set ${updated.join(', ')}, custom_fields = contacts.custom_fields || excluded.custom_fields, updated_at = excluded.updated_at`
  );
}

/** (a) The raw upserts of every item, 1,000 rows a statement; contacts/s. */
async function rawPass(db: Client, tenant: Tenant, items: readonly ListingItem[]): Promise<number> {
  const rows = items.map(rawValues);
  const started = performance.now();
  for (let start = 0; start < rows.length; start += BATCH) {
    const chunk = rows.slice(start, start + BATCH);
    const values: string[] = [tenant.uuid];
    for (const row of chunk) values.push(uuidV7(), ...row);
    const result = await db.query({ name: `bench.upsert.${chunk.length}`, text: rawUpsertText(chunk.length), values });
    if (result.rowCount !== chunk.length) throw new Error(`a raw upsert of ${chunk.length} rows wrote ${result.rowCount}`);
  }
  return rows.length / ((performance.now() - started) / 1000);
}

/** (b) Every item through the API, 1,000 a call, one call after another; contacts/s and each call's milliseconds. */
async function apiPass(setup: BenchInstallation, tenant: Tenant, listing: string, items: readonly ListingItem[], expected: 'created' | 'updated'): Promise<{ rate: number; callMs: number[] }> {
  const callMs: number[] = [];
  const started = performance.now();
  for (let start = 0; start < items.length; start += BATCH) {
    const chunk = items.slice(start, start + BATCH);
    const callStarted = performance.now();
    const res = await request(setup, tenant, 'POST', `/api/v1/listings/${listing}/contacts`, { contacts: chunk });
    callMs.push(performance.now() - callStarted);
    if (res.status !== 200) throw new Error(`the upload answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    const data = res.body.data;
    if (data.failed.length > 0 || data[expected] !== chunk.length) {
      throw new Error(`an upload of ${chunk.length} items expected all ${expected}, got ${JSON.stringify({ ...data, failed: data.failed.slice(0, 3) })}`);
    }
  }
  return { rate: items.length / ((performance.now() - started) / 1000), callMs };
}

async function count(db: Client, text: string, values: unknown[]): Promise<number> {
  return Number((await db.query(text, values)).rows[0].count);
}

/** Every contact of `tenant` holds the items' values (the last wave sent), with its memberships. */
async function checkWritten(db: Client, what: string, tenant: Tenant, items: readonly ListingItem[], memberships: { listing?: string; pool?: string | null }): Promise<void> {
  const last = items[items.length - 1];
  const contacts = await count(db, 'select count(*) from contacts where tenant_uuid = $1', [tenant.uuid]);
  const matching = await count(db, "select count(*) from contacts where tenant_uuid = $1 and lead_source = $2 and custom_fields->>'budget' is not null", [tenant.uuid, last.lead_source]);
  const lastRow = (await db.query('select email, city, custom_fields from contacts where tenant_uuid = $1 and phone_number = $2', [tenant.uuid, last.phone_number])).rows[0];
  const problems: string[] = [];
  if (contacts !== items.length || matching !== items.length) problems.push(`${contacts} contacts, ${matching} of them with lead_source ${last.lead_source}; expected ${items.length}`);
  if (lastRow?.email !== last.email || lastRow?.city !== last.city || lastRow?.custom_fields?.budget !== last.budget) problems.push(`the last contact reads ${JSON.stringify(lastRow)}`);
  if (memberships.listing) {
    const listed = await count(db, 'select count(*) from listing_contacts where tenant_uuid = $1 and listing_uuid = $2', [tenant.uuid, memberships.listing]);
    if (listed !== items.length) problems.push(`${listed} contacts on the listing`);
  }
  if (memberships.pool) {
    const pooled = await count(db, 'select count(*) from pool_items where tenant_uuid = $1 and pool_uuid = $2', [tenant.uuid, memberships.pool]);
    if (pooled !== items.length) problems.push(`${pooled} contacts in the pool`);
  }
  if (problems.length > 0) throw new Error(`${what}: ${problems.join('; ')}`);
}

/** Deletes what the tenants' passes wrote and vacuums, so the next round starts from the same tables. */
async function clearTenants(db: Client, tenants: readonly Tenant[]): Promise<void> {
  const uuids = tenants.map((tenant) => tenant.uuid);
  for (const table of ['listing_contacts', 'pool_items', 'contacts']) await db.query(`delete from ${table} where tenant_uuid = any($1::uuid[])`, [uuids]);
  await db.query('vacuum analyze contacts, listing_contacts, pool_items, contact_fields');
  await db.query('checkpoint');
}

const loadNow = () => os.loadavg().map((value) => round3(value));

async function main() {
  const setup = await prepareInstallation({ serverUrl: SERVER_URL, prefix: 'sb_bench_outreach', tenant: 'warmup' });
  let child: ChildProcess | undefined;
  const db = new Client({ connectionString: setup.databaseUrl });
  await db.connect();
  try {
    console.log(
      `bench/outreach: ${CONTACTS} contacts, ${BATCH} a call/statement, ${ROUNDS} rounds${WITH_POOL ? ', also with a pool' : ''}${WITH_UPDATES ? ', then updates' : ''}` +
        ` (${os.cpus().length} CPUs, load ${loadNow().join(' ')})`,
    );
    const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, CLI, 'serve'], { env: setup.env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitReady(setup.port);

    const inserts = listingItems(CONTACTS, 1);
    const updates = listingItems(CONTACTS, 2);

    // Warm-up: a few calls and statements of each kind, so neither side is measured compiling, preparing or connecting.
    const warmApi: Tenant = { slug: 'warmup', uuid: setup.tenantUuid, token: setup.token };
    const warmRaw = await createTenant(setup, 'warmup-raw');
    const warmListing = await createListing(setup, warmApi, WITH_POOL);
    await rawPass(db, warmRaw, inserts.slice(0, WARM_UP));
    await apiPass(setup, warmApi, warmListing.listing, inserts.slice(0, WARM_UP), 'created');
    await rawPass(db, warmRaw, updates.slice(0, WARM_UP));
    await apiPass(setup, warmApi, warmListing.listing, updates.slice(0, WARM_UP), 'updated');
    await clearTenants(db, [warmApi, warmRaw]);

    const loadBefore = loadNow();
    const rate = { raw: [] as number[], api: [] as number[], pool: [] as number[], rawUpdate: [] as number[], apiUpdate: [] as number[] };
    const callMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const rawTenant = await createTenant(setup, `r${round}-raw`);
      const apiTenant = await createTenant(setup, `r${round}-api`);
      const poolTenant = WITH_POOL ? await createTenant(setup, `r${round}-pool`) : null;
      const plain = await createListing(setup, apiTenant, false);
      const pooled = poolTenant ? await createListing(setup, poolTenant, true) : null;

      rate.raw.push(await rawPass(db, rawTenant, inserts));
      const api = await apiPass(setup, apiTenant, plain.listing, inserts, 'created');
      rate.api.push(api.rate);
      callMs.push(...api.callMs);
      if (poolTenant && pooled) rate.pool.push((await apiPass(setup, poolTenant, pooled.listing, inserts, 'created')).rate);
      await checkWritten(db, 'the raw inserts', rawTenant, inserts, {});
      await checkWritten(db, 'the API inserts', apiTenant, inserts, { listing: plain.listing });
      if (poolTenant && pooled) await checkWritten(db, 'the API inserts with a pool', poolTenant, inserts, pooled);
      let line = `round ${round}: insert raw ${fmt(rate.raw.at(-1)!, 0)}/s, API ${fmt(api.rate, 0)}/s (${fmt(api.rate / rate.raw.at(-1)!)})`;
      if (poolTenant) line += `, API with pool ${fmt(rate.pool.at(-1)!, 0)}/s (${fmt(rate.pool.at(-1)! / rate.raw.at(-1)!)})`;

      if (WITH_UPDATES) {
        rate.rawUpdate.push(await rawPass(db, rawTenant, updates));
        rate.apiUpdate.push((await apiPass(setup, apiTenant, plain.listing, updates, 'updated')).rate);
        await checkWritten(db, 'the raw updates', rawTenant, updates, {});
        await checkWritten(db, 'the API updates', apiTenant, updates, { listing: plain.listing });
        line += `; update raw ${fmt(rate.rawUpdate.at(-1)!, 0)}/s, API ${fmt(rate.apiUpdate.at(-1)!, 0)}/s (${fmt(rate.apiUpdate.at(-1)! / rate.rawUpdate.at(-1)!)})`;
      }
      console.log(line);
      await clearTenants(db, [rawTenant, apiTenant, ...(poolTenant ? [poolTenant] : [])]);
    }
    const loadAfter = loadNow();

    const raw = median(rate.raw);
    const api = median(rate.api);
    const pool = median(rate.pool);
    const rawUpdate = median(rate.rawUpdate);
    const apiUpdate = median(rate.apiUpdate);
    const calls = [...callMs].sort((a, b) => a - b);
    const result = {
      measured_at: new Date().toISOString(),
      contacts: CONTACTS,
      batch: BATCH,
      rounds: ROUNDS,
      machine: { cpus: os.cpus().length, load_before: loadBefore, load_after: loadAfter },
      insert: {
        raw_contacts_per_s: round3(raw),
        api_contacts_per_s: round3(api),
        ratio: round3(api / raw),
        api_call_ms: { p50: round3(percentile(calls, 50)), p95: round3(percentile(calls, 95)) },
        rounds_raw_contacts_per_s: rate.raw.map(round3),
        rounds_api_contacts_per_s: rate.api.map(round3),
        ...(WITH_POOL ? { api_with_pool_contacts_per_s: round3(pool), pool_ratio: round3(pool / raw), rounds_api_with_pool_contacts_per_s: rate.pool.map(round3) } : {}),
      },
      ...(WITH_UPDATES
        ? {
            update: {
              raw_contacts_per_s: round3(rawUpdate),
              api_contacts_per_s: round3(apiUpdate),
              ratio: round3(apiUpdate / rawUpdate),
              rounds_raw_contacts_per_s: rate.rawUpdate.map(round3),
              rounds_api_contacts_per_s: rate.apiUpdate.map(round3),
            },
          }
        : {}),
      goals: GOALS,
    };
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2));

    const lines: Array<[string, string, string]> = [
      [`raw INSERT ... ON CONFLICT (pg, ${BATCH} rows a statement)`, `${fmt(raw, 0)} contacts/s`, ''],
      [`API upload to a listing (${BATCH} items a call)`, `${fmt(api, 0)} contacts/s`, ''],
      ['API / raw', fmt(api / raw), `>= ${GOALS.minApiToRawRatio}`],
      ['API call, p50 / p95', `${fmt(result.insert.api_call_ms.p50, 0)} / ${fmt(result.insert.api_call_ms.p95, 0)} ms`, ''],
    ];
    if (WITH_POOL) lines.push(['API upload, listing with a pool (draft campaign)', `${fmt(pool, 0)} contacts/s`, ''], ['  with a pool / raw', fmt(pool / raw), '']);
    if (WITH_UPDATES) {
      lines.push(['updates: raw', `${fmt(rawUpdate, 0)} contacts/s`, ''], ['updates: API', `${fmt(apiUpdate, 0)} contacts/s`, ''], ['updates: API / raw', fmt(apiUpdate / rawUpdate), '']);
    }
    printTable(lines, 18);
    console.log(`load average before the rounds ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}`);
    if (api / raw < GOALS.minApiToRawRatio && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
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
