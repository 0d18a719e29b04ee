import crypto from 'node:crypto';
import fs from 'node:fs';
import { callersOf, fixedCases, multipartCases, randomCases } from './fuzz-cases';
import { FuzzRunner, type Finding } from './fuzz-runner';
import { repopulate, startFuzzWorld, type FuzzWorld, type Operation } from './fuzz-world';
import { isKnown, KNOWN_FAILURES } from './known-failures';

/**
 * The API fuzzed from its own OpenAPI document: every operation, on two tenants (admin
 * operations with the admin token), gets requests generated from its schemas and
 * hostile ones (NUL, lone surrogates, prototype member names, 5,000-deep nesting,
 * huge and negative numbers, wrong types, 1 MiB, the other tenant's ids, upper-case
 * ids, malformed percent-encoding, cut-off multipart bodies). Each answer must be no
 * 5xx and show no stack trace, a refused request must write no tenant row, and the
 * server must still answer /healthz after each operation.
 *
 * Bounded by time: FUZZ_SECONDS (default 150, about three minutes in all) is what
 * the whole file may take; what the boot and the fixed battery leave of it is shared out
 * as a fixed number of random runs per operation, from how fast the battery went; FUZZ_RUNS
 * sets that number instead. FUZZ_SEED replays a run (the seed is printed on failure);
 * FUZZ_REPORT=<file> writes every finding there as JSON; FUZZ_ONLY=<regex> fuzzes only
 * the operations whose `METHOD /path` matches.
 */
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 150);
const RUNS = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : undefined;
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Only the operations whose `METHOD /path` matches (to replay a finding quickly). */
const ONLY = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined;
const BOOT_TIMEOUT_MS = 180_000;

let world: FuzzWorld;
let runner: FuzzRunner;
const started = Date.now();

beforeAll(async () => {
  // Fuzzing sends thousands of requests a minute. Rate limits are off unless configured
  // (RATE_LIMIT_*); should a default ever turn them on, raise them here, or every answer becomes a 429.
  world = await startFuzzWorld({ busPollIntervalMs: 200 });
  if (ONLY) world.operations = world.operations.filter((op) => ONLY.test(op.name));
  runner = await FuzzRunner.start(world);
}, BOOT_TIMEOUT_MS);

afterAll(async () => {
  if (runner && process.env.FUZZ_REPORT) {
    // With each finding, the server's own log lines about its request (the error behind a 500).
    const logsOf = (answer?: string) => {
      const id = answer?.match(/"request_id":"([^"]+)"/)?.[1];
      return id ? world.kit.logs.filter((line) => JSON.stringify(line).includes(id)) : [];
    };
    const findings = runner.findings.map((finding) => ({ ...finding, logs: logsOf(finding.answer) }));
    fs.writeFileSync(process.env.FUZZ_REPORT, JSON.stringify({ seed: SEED, timing: runner.timing, findings, notes: runner.notes }, null, 2));
  }
  runner?.close();
  await world?.kit.stop();
}, 60_000);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Each operation's seed comes from its name, so FUZZ_ONLY with FUZZ_SEED replays exactly what a full run sent it. */
const seedOf = (op: Operation, phase: number) => (SEED ^ crypto.createHash('sha256').update(`${phase} ${op.name}`).digest().readUInt32BE(0)) >>> 1;

/** Runs cases one after another, then checks the server is alive: one batch per operation and caller. */
async function batch(op: Operation, cases: Parameters<FuzzRunner['run']>[0][]): Promise<void> {
  for (const fuzzCase of cases) await runner.run(fuzzCase);
  if (!(await runner.alive(op.name))) throw new Error(`the server stopped answering after ${op.name} (seed ${SEED}): ${JSON.stringify(runner.findings.slice(-3), null, 2)}`);
}

function verdict(findings: Finding[]): void {
  const unexpected = findings.filter((finding) => !isKnown(finding));
  const known = findings.filter((finding) => isKnown(finding));
  if (known.length > 0) {
    // One line per known failure, with how often and one request that shows it (FUZZ_REPORT lists them all).
    const lines = KNOWN_FAILURES.map((entry) => ({ entry, hits: known.filter((f) => isKnown(f) === entry) }))
      .filter(({ hits }) => hits.length > 0)
      .map(({ entry, hits }) => `${hits.length}x ${entry.issue}: ${hits[0].problem}, e.g. ${hits[0].request.slice(0, 200)}`);
    console.warn(`fuzz: ${known.length} known failure(s) (known-failures.ts):\n${lines.join('\n')}`);
  }
  if (runner.notes.length > 0) console.info(`fuzz: notes (not failures)\n${runner.notes.map((f) => `${f.operation} ${f.label}: ${f.problem}`).join('\n')}`);
  if (unexpected.length > 0) {
    throw new Error(`fuzz found ${unexpected.length} problem(s); replay with FUZZ_SEED=${SEED}\n${JSON.stringify(unexpected.slice(0, 30), null, 2)}`);
  }
}

describe('OpenAPI fuzz', () => {
  let fixedMs = 0;
  let fixedSent = 0;

  test('the world is complete: both tenants own a resource of every kind, the document lists every route', () => {
    expect(world.fixtureErrors).toEqual([]);
    expect(Object.keys(world.a.ids).sort()).toEqual(Object.keys(world.b.ids).sort());
    if (!ONLY) expect(world.operations.length).toBeGreaterThanOrEqual(world.kit.kernel.registry.list().length);
    // Each tenant's own resources (a shared catalog key, such as a flow app's uid, is the same for both).
    for (const kind of Object.keys(world.a.ids).filter((kind) => UUID.test(world.a.ids[kind]))) expect(world.a.ids[kind]).not.toEqual(world.b.ids[kind]);
  });

  test(
    'a fixed battery of hostile requests to every operation: no 5xx, no stack trace, no write when refused',
    async () => {
      const t0 = Date.now();
      const sent0 = runner.sent;
      const first = runner.findings.length;
      for (const op of world.operations) {
        for (const caller of callersOf(world, op)) {
          await batch(op, op.multipart ? [...fixedCases(world, op, caller, seedOf(op, 1)), ...multipartCases(world, op, caller)] : fixedCases(world, op, caller, seedOf(op, 1)));
        }
      }
      fixedMs = Date.now() - t0;
      fixedSent = runner.sent - sent0;
      console.info(`fuzz: fixed battery sent ${fixedSent} requests to ${world.operations.length} operations in ${fixedMs} ms (seed ${SEED}); time ${JSON.stringify(runner.timing)}`);
      verdict(runner.findings.slice(first));
    },
    600_000,
  );

  test(
    'the tenant-host hook route: a tenant’s hook token on the other tenant’s host is not found',
    async () => {
      const hook = world.operations.find((op) => op.auth === 'tenant-host');
      if (ONLY && !hook) return;
      expect(hook).toBeDefined();
      const first = runner.findings.length;
      for (const caller of callersOf(world, hook!)) {
        const foreign = caller.other.hookPath!;
        const res = await runner.run({ op: hook!, label: `${caller.name}: the other tenant’s hook token`, request: { method: 'POST', path: foreign, host: caller.host, body: '{}' }, expect: [404] });
        expect(res?.status).toBe(404);
      }
      verdict(runner.findings.slice(first));
    },
    120_000,
  );

  test(
    'generated and mutated requests, a fixed number per operation from the time budget',
    async () => {
      const first = runner.findings.length;
      // The battery ended with the DELETE operations: fresh resources, or this phase would only meet 404s.
      await repopulate(world);
      expect(world.fixtureErrors).toEqual([]);
      const callers = world.operations.reduce((n, op) => n + callersOf(world, op).length, 0);
      // The battery's pace, plus a margin for what it barely had: waits for quiet after background writes.
      const perRequestMs = (fixedSent > 0 ? fixedMs / fixedSent : 20) * 1.3;
      const remainingMs = Math.max(0, SECONDS * 1000 - (Date.now() - started));
      const runs = RUNS ?? Math.max(2, Math.floor(remainingMs / perRequestMs / callers));
      console.info(`fuzz: ${runs} random run(s) per operation and caller (${callers} pairs, ~${perRequestMs.toFixed(1)} ms a request, seed ${SEED})`);
      for (const op of world.operations) {
        for (const caller of callersOf(world, op)) await batch(op, randomCases(world, op, caller, seedOf(op, 2), runs));
      }
      console.info(`fuzz: ${runner.sent} requests in all; statuses ${JSON.stringify(Object.fromEntries([...runner.statuses].sort()))}; time ${JSON.stringify(runner.timing)}`);
      verdict(runner.findings.slice(first));
      const stale = KNOWN_FAILURES.filter((known) => !runner.findings.some((f) => isKnown(f) === known));
      if (stale.length > 0) console.warn(`fuzz: known failures no longer seen (remove them once fixed):\n${stale.map((k) => `${k.operation} ${k.problem}`).join('\n')}`);
    },
    (SECONDS + 600) * 1000,
  );
});
