/**
 * bench/tables: a big CSV import through the real API against PostgreSQL's own COPY of
 * the same file, the memory the import takes, and search latency over the result.
 *
 *   node -r ./bin/register-ts.js bench/tables.ts      (npm run bench:tables)
 *
 * The file: BENCH_ROWS rows (100,000 by default) of 8 columns of mixed types (number,
 * text, text, number, date, boolean, url, a sentence of words), generated on disk.
 *
 * Switchboard runs as one `switchboard start` child (HTTP and worker in one process,
 * in-process bus unless AMQP_URL is given), so one process does all the import's work:
 * it takes the upload, stores it, and runs the job (parse, check, insert). Its resident
 * memory is sampled from /proc every 50 ms while the import runs; the peak includes
 * the whole kernel (Node, the ORM, the HTTP server, every plugin), not only the import.
 *
 * (a) COPY: `COPY ... FROM STDIN (FORMAT csv, HEADER)` of the file through `pg` and
 *     pg-copy-streams into a plain table of 8 text columns: PostgreSQL's own rate.
 * (a') Insert floor: the statements the import sends (2,000 rows a statement, each batch
 *     one JSON array unpacked by jsonb_array_elements) into data_table_records, from a
 *     plain loop over values parsed beforehand, in one transaction: what storing the
 *     rows costs PostgreSQL alone (jsonb, two indexes, the statement-level key to the table).
 *     Ids come from the import's own RecordIds (time-ordered UUIDv7): random v4 ids land all
 *     over the primary key's btree and would make the floor slower than the import's inserts.
 * (a'') COPY into the records table: the same stored values (ids from RecordIds) as COPY
 *     text into data_table_records, in one transaction, into a table made through the API
 *     (so the statement-level key and the indexes are the real ones): what this storage
 *     costs PostgreSQL at its fastest. A row here is a uuid key in two btrees and a jsonb
 *     document, not 8 bare text columns, so even COPY runs well below (a); `records COPY /
 *     COPY` is about the most any import into this storage could reach of the goal's ratio
 *     (not a hard bound: the import's jsonb_array_elements inserts run about as fast, which
 *     is why RecordWriter uses them), and `import / records COPY` is how close it comes.
 * (a''') COPY into a typed table: the same rows into a table of typed columns with a uuid
 *     key, a storage Switchboard does not have (one table per dataset). With the upload's
 *     own time (the request until its 202: the file is received and stored before the job
 *     is queued), `(upload, then typed COPY) / COPY` is what an import could reach were its
 *     job nothing but that COPY: whether a storage redesign alone could meet the goal.
 * (b) Import: POST /api/v1/data/import/file with the file streamed as multipart, then
 *     GET /api/v1/data/imports/{uuid} every 20 ms until `completed`; rows/s from the
 *     request's start to the first `completed` seen. Goal: at least half of COPY's rate,
 *     peak RSS under 300 MB.
 * (c) Search: once the table's index is `current` (the sync the import queued), ~200
 *     queries (single words, two-word phrases, names, words with a typo) through
 *     POST /api/v1/data/{uuid}/search {query, limit: 10}, one at a time; p50 and p95 of
 *     the HTTP round trip. Goal: p95 under 50 ms.
 *
 * Environment:
 *   DATABASE_URL        PostgreSQL server for the bench database (default postgresql://postgres@127.0.0.1:5432/postgres)
 *   AMQP_URL            RabbitMQ for the bus (default: none, in-process)
 *   BENCH_ROWS          rows in the file (default 100000)
 *   BENCH_ROUNDS        rounds of (a) and of (b) (default 3; medians are reported)
 *   BENCH_QUERIES       search queries (default 200)
 *   BENCH_INDEX_TIMEOUT seconds to wait for the search index (default 600)
 *   BENCH_NODE_FLAGS    extra node flags for the switchboard child (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
 *   BENCH_VERBOSE=1     also print where each import's time went (upload, queue, job)
 *   BENCH_ENFORCE=1     exit 1 when a goal is missed
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse/sync';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { fmt, median, numberEnv, percentile, printTable, round3 } from './lib/bench-stats';
import { RecordIds } from '../plugins/tables/imports/record-ids';
import { CLI, dropDatabase, removeInstallationTopology, jsonRequest, jsonResponse, prepareInstallation, stopChildren, waitReady, SERVER_NODE_FLAGS } from './lib/switchboard-process';

const RESULTS_FILE = path.join(__dirname, 'results', 'tables.json');
const SERVER_URL = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const AMQP_URL = process.env.AMQP_URL ?? '';
const ROWS = numberEnv('BENCH_ROWS', 100_000);
const ROUNDS = Math.max(1, numberEnv('BENCH_ROUNDS', 3));
const QUERIES = numberEnv('BENCH_QUERIES', 200);
const INDEX_TIMEOUT_S = numberEnv('BENCH_INDEX_TIMEOUT', 600);
const TENANT = 'bench';

/** The goals. */
const GOALS = { minImportToCopyRatio: 0.5, maxPeakRssMb: 300, maxSearchP95Ms: 50 };

const WORDS = (
  'invoice shipment warehouse pallet courier refund voucher account billing delivery tracking parcel customs ' +
  'supplier inventory backorder discount loyalty checkout payment receipt warranty repair replacement battery ' +
  'charger cable monitor keyboard printer scanner router speaker headphones camera tripod lantern compass kettle ' +
  'blender toaster mixer grinder vacuum heater radiator thermostat ladder hammer drill sander chisel clamp wrench'
).split(' ');
const FIRST_NAMES = 'Ada Bruno Chloe Dmitri Elena Farid Greta Hiro Ines Jonas Kira Luca Mina Nils Olga Pavel Quinn Rosa Sven Tara'.split(' ');
const LAST_NAMES = 'Novak Silva Okafor Tanaka Berg Moreau Kowalski Haddad Lindqvist Rossi Petrov Nguyen Fischer Costa Ivanova'.split(' ');

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The CSV file: header and ROWS rows of 8 columns. */
async function generateCsv(file: string): Promise<number> {
  const random = rng(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const out = fs.createWriteStream(file);
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve())));
  await write('id,customer,email,amount,ordered_on,paid,link,note\n');
  for (let i = 1; i <= ROWS; i++) {
    const first = pick(FIRST_NAMES);
    const last = pick(LAST_NAMES);
    const day = new Date(Date.UTC(2020, 0, 1) + Math.floor(random() * 1800) * 86_400_000).toISOString().slice(0, 10);
    const note = Array.from({ length: 6 + Math.floor(random() * 8) }, () => pick(WORDS)).join(' ');
    await write(`${i},${first} ${last},${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com,${(random() * 1000).toFixed(2)},${day},${random() < 0.5},https://shop.example.com/orders/${i},"${note}"\n`);
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return fs.statSync(file).size;
}



const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

interface Setup {
  databaseName: string;
  databaseUrl: string;
  port: number;
  token: string;
  child: ChildProcess;
  /** The installation's environment (its bus namespace, for the cleanup). */
  env: NodeJS.ProcessEnv;
}

/** One JSON request to the child, as the bench tenant. */
function request(setup: Pick<Setup, 'port' | 'token'>, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return jsonRequest({ port: setup.port, agent, tenantSlug: TENANT, token: setup.token }, method, requestPath, body);
}

/** POST /data/import/file with the file streamed from disk as the multipart body. */
function uploadFile(setup: Setup, file: string, name: string): Promise<{ status: number; body: any }> {
  const boundary = `bench${crypto.randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: setup.port,
        method: 'POST',
        path: '/api/v1/data/import/file',
        agent,
        headers: {
          host: `${TENANT}.localhost`,
          authorization: `Bearer ${setup.token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
        },
      },
      jsonResponse(resolve),
    );
    req.on('error', reject);
    req.write(head);
    const body = fs.createReadStream(file);
    body.on('error', reject);
    body.on('end', () => req.end(tail));
    body.pipe(req, { end: false });
  });
}


async function setUp(csvBytes: number): Promise<Setup> {
  const { name, databaseUrl, port, env, token } = await prepareInstallation({
    serverUrl: SERVER_URL,
    prefix: 'sb_bench_tables',
    amqpUrl: AMQP_URL,
    tenant: TENANT,
    // A file bigger than the default limit (BENCH_ROWS well over 250,000) is still measured, not refused.
    extraEnv: { HTTP_UPLOAD_LIMIT: `${Math.max(50, Math.ceil(csvBytes / 1024 / 1024) + 1)}mb` },
  });
  const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, CLI, 'start'], { env, stdio: ['ignore', process.env.BENCH_CHILD_STDOUT ? 'inherit' : 'ignore', 'inherit'] });
  await waitReady(port);
  return { databaseName: name, databaseUrl, port, token, child, env };
}

/** (a) PostgreSQL's COPY of the file into a plain table of 8 text columns; rows/s. */
async function copyRound(db: Client, file: string): Promise<number> {
  await db.query('drop table if exists bench_copy');
  await db.query('create table bench_copy (id text, customer text, email text, amount text, ordered_on text, paid text, link text, note text)');
  const started = performance.now();
  await db.query('begin');
  await pipeline(fs.createReadStream(file), db.query(copyFrom('copy bench_copy from stdin (format csv, header true)')));
  await db.query('commit');
  return ROWS / ((performance.now() - started) / 1000);
}

/** The file's rows as the import stores them: values by storage key, typed. */
function storedValues(file: string): string[] {
  const rows: string[][] = parse(fs.readFileSync(file), { from_line: 2 });
  return rows.map(([id, customer, email, amount, orderedOn, paid, link, note]) =>
    JSON.stringify({ c1: Number(id), c2: customer, c3: email, c4: Number(amount), c5: orderedOn, c6: paid === 'true', c7: link, c8: note }),
  );
}

/** An empty table made through the API (its records get the real key trigger and indexes), and its tenant. */
async function createTable(setup: Setup, db: Client, name: string): Promise<{ table: string; tenant: string }> {
  const created = await request(setup, 'POST', '/api/v1/data/tables', { name, columns: [] });
  if (created.status !== 201) throw new Error(`create table answered ${created.status}: ${JSON.stringify(created.body)}`);
  const table: string = created.body.data.uuid;
  const [{ tenant_uuid: tenant }] = (await db.query('select tenant_uuid from data_tables where uuid = $1', [table])).rows;
  return { table, tenant };
}

/** (a') The import's insert statements from a plain loop, into a table made for it and dropped after; rows/s. */
async function insertFloorRound(setup: Setup, db: Client, values: string[]): Promise<number> {
  const { table, tenant } = await createTable(setup, db, 'insert floor');
  const ids = new RecordIds();
  const started = performance.now();
  await db.query('begin');
  for (let start = 0; start < values.length; start += 2000) {
    const batch = values.slice(start, start + 2000);
    const batchIds = ids.next(batch.length);
    const entries = batch.map((json, index) => `["${batchIds[index]}",${json}]`);
    await db.query(
      `insert into data_table_records (uuid, tenant_uuid, created_at, updated_at, table_uuid, "values") ` +
        `select (entry->>0)::uuid, $1, now(), now(), $2, entry->1 from jsonb_array_elements($3::jsonb) as entry`,
      [tenant, table, `[${entries.join(',')}]`],
    );
  }
  await db.query('commit');
  const rate = values.length / ((performance.now() - started) / 1000);
  await request(setup, 'DELETE', `/api/v1/data/${table}`);
  return rate;
}

/**
 * (a'') The same stored values by COPY (text format) into data_table_records, into a table
 * made for it and dropped after; rows/s. The COPY text is built before the clock starts, as
 * (a) reads a file already written: only PostgreSQL's work is timed. In text format a
 * backslash is the escape character, so the JSON's own backslashes are doubled; tabs and
 * newlines cannot occur raw (JSON.stringify escapes them inside strings).
 */
async function recordsCopyRound(setup: Setup, db: Client, values: string[]): Promise<number> {
  const { table, tenant } = await createTable(setup, db, 'records copy');
  const ids = new RecordIds();
  const now = new Date().toISOString();
  const chunks: string[] = [];
  for (let start = 0; start < values.length; start += 2000) {
    const batch = values.slice(start, start + 2000);
    const batchIds = ids.next(batch.length);
    chunks.push(batch.map((json, index) => `${batchIds[index]}\t${tenant}\t${now}\t${now}\t${table}\t${json.replaceAll('\\', '\\\\')}\n`).join(''));
  }
  const started = performance.now();
  await db.query('begin');
  await pipeline(
    Readable.from(chunks),
    db.query(copyFrom('copy data_table_records (uuid, tenant_uuid, created_at, updated_at, table_uuid, "values") from stdin')),
  );
  await db.query('commit');
  const rate = values.length / ((performance.now() - started) / 1000);
  await request(setup, 'DELETE', `/api/v1/data/${table}`);
  return rate;
}

/**
 * (a''') COPY into a typed table: the same rows as a table of typed columns would hold them
 * (a uuid primary key from RecordIds, then numeric, text, text, numeric, timestamptz,
 * boolean, text, text), COPY text built before the clock starts, into a table made for it
 * and dropped after; rows/s. Switchboard has no such storage (a record is one jsonb
 * document): this is what a redesign to one table per dataset would cost PostgreSQL at its
 * fastest, so the report can say whether even that could reach the goal.
 */
async function typedCopyRound(db: Client, file: string): Promise<number> {
  const rows: string[][] = parse(fs.readFileSync(file), { from_line: 2 });
  const ids = new RecordIds().next(rows.length);
  const escape = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('\t', '\\t').replaceAll('\n', '\\n');
  const chunks: string[] = [];
  for (let start = 0; start < rows.length; start += 2000) {
    chunks.push(
      rows
        .slice(start, start + 2000)
        .map((cells, index) => `${ids[start + index]}\t${cells.map(escape).join('\t')}\n`)
        .join(''),
    );
  }
  await db.query('drop table if exists bench_typed_copy');
  await db.query(
    'create table bench_typed_copy (uuid uuid primary key, id numeric, customer text, email text, amount numeric, ordered_on timestamptz, paid boolean, link text, note text)',
  );
  const started = performance.now();
  await db.query('begin');
  await pipeline(Readable.from(chunks), db.query(copyFrom('copy bench_typed_copy from stdin')));
  await db.query('commit');
  const rate = ROWS / ((performance.now() - started) / 1000);
  await db.query('drop table bench_typed_copy');
  return rate;
}

/** Resident memory of a process, in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** (b) One import through the API; rows/s and the child's peak RSS while it ran. */
async function importRound(setup: Setup, file: string, round: number): Promise<{ rate: number; uploadMs: number; peakRssMb: number; table: string }> {
  let peak = rssMb(setup.child.pid!);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(setup.child.pid!))), 50);
  try {
    const started = performance.now();
    const res = await uploadFile(setup, file, `orders-${round}.csv`);
    const uploaded = performance.now();
    const peakWhileUploading = peak;
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
    const uuid: string = res.body.data.uuid;
    for (;;) {
      const job = (await request(setup, 'GET', `/api/v1/data/imports/${uuid}`)).body.data;
      if (job.status === 'failed') throw new Error(`import failed: ${job.message}`);
      if (job.status === 'completed') {
        const seconds = (performance.now() - started) / 1000;
        if (process.env.BENCH_VERBOSE) {
          const at = (name: string) => new Date(job[name]).getTime();
          console.log(`  upload answered after ${fmt(uploaded - started, 0)} ms; queued ${at('started_at') - at('created_at')} ms; job ${at('finished_at') - at('started_at')} ms`);
          console.log(`  peak RSS while uploading ${fmt(peakWhileUploading, 0)} MB, overall ${fmt(peak, 0)} MB`);
        }
        if (job.rows_imported !== ROWS) throw new Error(`imported ${job.rows_imported} rows of ${ROWS} (errors: ${JSON.stringify(job.errors.slice(0, 3))})`);
        return { rate: ROWS / seconds, uploadMs: uploaded - started, peakRssMb: Math.max(peak, rssMb(setup.child.pid!)), table: job.table_uuid };
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    clearInterval(sampler);
  }
}

/** Waits for the table's search index to be current (the sync the import queued); false on timeout. */
async function indexCurrent(setup: Setup, table: string): Promise<boolean> {
  const deadline = Date.now() + INDEX_TIMEOUT_S * 1000;
  while (Date.now() < deadline) {
    const res = await request(setup, 'GET', `/api/v1/data/${table}`);
    if (res.body?.data?.index?.status === 'current') return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** (c) Varied queries: words, two-word phrases, names, a typo. */
function searchQueries(): string[] {
  const random = rng(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const typo = (word: string) => {
    const at = 1 + Math.floor(random() * (word.length - 2));
    return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  };
  return Array.from({ length: QUERIES }, (_, i) => {
    switch (i % 5) {
      case 0:
        return pick(WORDS);
      case 1:
        return `"${pick(WORDS)} ${pick(WORDS)}"`;
      case 2:
        return `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
      case 3:
        return typo(pick(WORDS));
      default:
        return `${pick(WORDS)} ${pick(WORDS)} refund`;
    }
  });
}

async function searchLatencies(setup: Setup, table: string): Promise<number[] | string> {
  const probe = await request(setup, 'POST', `/api/v1/data/${table}/search`, { query: 'refund', limit: 10 });
  if (probe.status !== 200) return `search answered ${probe.status} (${JSON.stringify(probe.body).slice(0, 200)})`;
  const latencies: number[] = [];
  for (const query of searchQueries()) {
    const started = performance.now();
    const res = await request(setup, 'POST', `/api/v1/data/${table}/search`, { query, limit: 10 });
    latencies.push(performance.now() - started);
    if (res.status !== 200) return `search for ${JSON.stringify(query)} answered ${res.status}`;
  }
  return latencies.sort((a, b) => a - b);
}

async function main() {
  const file = path.join(os.tmpdir(), `sb-bench-tables-${process.pid}.csv`);
  const bytes = await generateCsv(file);
  const setup = await setUp(bytes);
  const db = new Client({ connectionString: setup.databaseUrl });
  await db.connect();
  try {
    console.log(`bench/tables: ${ROWS} rows x 8 columns (${fmt(bytes / 1024 / 1024, 1)} MB CSV), ${ROUNDS} rounds, bus ${AMQP_URL ? 'RabbitMQ' : 'in-process'}`);
    const idleRss = rssMb(setup.child.pid!);
    const values = storedValues(file);
    const copies: number[] = [];
    const floors: number[] = [];
    const recordCopies: number[] = [];
    const typedCopies: number[] = [];
    const uploads: number[] = [];
    const imports: number[] = [];
    const peaks: number[] = [];
    let table = '';
    for (let round = 1; round <= ROUNDS; round++) {
      copies.push(await copyRound(db, file));
      const result = await importRound(setup, file, round);
      imports.push(result.rate);
      uploads.push(result.uploadMs);
      peaks.push(result.peakRssMb);
      table = result.table;
      // The sync each import queues rebuilds the search index: let it finish before the next measurement competes with it.
      if (!(await indexCurrent(setup, table))) console.log(`  the search index of ${table} was not current after ${INDEX_TIMEOUT_S} s`);
      floors.push(await insertFloorRound(setup, db, values));
      recordCopies.push(await recordsCopyRound(setup, db, values));
      typedCopies.push(await typedCopyRound(db, file));
      console.log(
        `round ${round}: COPY ${fmt(copies.at(-1)!, 0)} rows/s, import ${fmt(result.rate, 0)} rows/s (upload ${fmt(result.uploadMs, 0)} ms) ` +
          `(insert floor ${fmt(floors.at(-1)!, 0)} rows/s, records COPY ${fmt(recordCopies.at(-1)!, 0)} rows/s, typed COPY ${fmt(typedCopies.at(-1)!, 0)} rows/s), ` +
          `peak RSS ${fmt(result.peakRssMb, 0)} MB`,
      );
    }
    const copyRate = median(copies);
    const floorRate = median(floors);
    const recordsCopyRate = median(recordCopies);
    const typedCopyRate = median(typedCopies);
    const uploadMs = median(uploads);
    // The most an import could reach were its job as fast as a typed COPY and took no time after the upload.
    const typedBound = 1 / (uploadMs / 1000 / ROWS + 1 / typedCopyRate);
    const importRate = median(imports);
    const peakRss = Math.max(...peaks);
    const latencies = (await indexCurrent(setup, table)) ? await searchLatencies(setup, table) : 'the search index never became current';
    const search = typeof latencies === 'string' ? null : { queries: latencies.length, p50: round3(percentile(latencies, 50)), p95: round3(percentile(latencies, 95)) };
    const result = {
      measured_at: new Date().toISOString(),
      rows: ROWS,
      csv_bytes: bytes,
      rounds: ROUNDS,
      bus: AMQP_URL ? 'rabbitmq' : 'in-process',
      copy_rows_per_s: round3(copyRate),
      insert_floor_rows_per_s: round3(floorRate),
      records_copy_rows_per_s: round3(recordsCopyRate),
      import_rows_per_s: round3(importRate),
      ratio: round3(importRate / copyRate),
      records_copy_to_copy_ratio: round3(recordsCopyRate / copyRate),
      import_to_records_copy_ratio: round3(importRate / recordsCopyRate),
      typed_copy_rows_per_s: round3(typedCopyRate),
      typed_copy_to_copy_ratio: round3(typedCopyRate / copyRate),
      upload_ms: round3(uploadMs),
      upload_then_typed_copy_to_copy_ratio: round3(typedBound / copyRate),
      idle_rss_mb: round3(idleRss),
      peak_rss_mb: round3(peakRss),
      search_ms: search ?? latencies,
      goals: GOALS,
    };
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2));

    const rows: Array<[string, string, string]> = [
      ['COPY FROM (pg, 8 text columns)', `${fmt(copyRate, 0)} rows/s`, ''],
      ['insert floor (the import\'s SQL, plain loop)', `${fmt(floorRate, 0)} rows/s`, ''],
      ['COPY into the records table (storage cap)', `${fmt(recordsCopyRate, 0)} rows/s`, ''],
      ['import via API (upload -> completed)', `${fmt(importRate, 0)} rows/s`, ''],
      ['import / COPY', fmt(importRate / copyRate), `>= ${GOALS.minImportToCopyRatio}`],
      ['import / insert floor', fmt(importRate / floorRate), ''],
      ['records COPY / COPY (about the most an import reaches)', fmt(recordsCopyRate / copyRate), ''],
      ['import / records COPY', fmt(importRate / recordsCopyRate), ''],
      ['COPY into a typed table (a storage Switchboard does not have)', `${fmt(typedCopyRate, 0)} rows/s`, ''],
      ['typed COPY / COPY', fmt(typedCopyRate / copyRate), ''],
      ['upload request alone (until 202)', `${fmt(uploadMs, 0)} ms`, ''],
      ['(upload, then typed COPY) / COPY', fmt(typedBound / copyRate), ''],
      ['RSS of the switchboard process, idle', `${fmt(idleRss, 0)} MB`, ''],
      ['peak RSS of the switchboard process', `${fmt(peakRss, 0)} MB`, `< ${GOALS.maxPeakRssMb} MB`],
      ['search p50', search ? `${fmt(search.p50)} ms` : String(latencies), ''],
      ['search p95', search ? `${fmt(search.p95)} ms` : '-', `< ${GOALS.maxSearchP95Ms} ms`],
    ];
    printTable(rows, 14);
    const missed = importRate / copyRate < GOALS.minImportToCopyRatio || peakRss >= GOALS.maxPeakRssMb || !search || search.p95 >= GOALS.maxSearchP95Ms;
    if (missed && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
  } finally {
    await db.end();
    await stopChildren([setup.child]);
    agent.destroy();
    fs.rmSync(file, { force: true });
    await removeInstallationTopology(setup.env);
    await dropDatabase(SERVER_URL, setup.databaseName);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
