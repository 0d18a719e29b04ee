import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { disabledPluginsExcept, startTestKernel, startWorkerProcess, waitForExit, type TestKernel } from '../../../../core/testing';
import { CallRecorder } from './call-recorder';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, fire, sql, waitFor } from './engine-helpers';

/**
 * The promise: a worker killed (SIGKILL) mid-flow loses and duplicates nothing.
 * Real `switchboard worker` processes run the executions; this process only serves.
 * The probe `call` steps POST to a recorder the test runs, which counts every call as
 * it arrives, so a call made by the killed worker is counted even though its step
 * never committed.
 */
const EXECUTIONS = 6;
let kit: TestKernel;
const recorder = new CallRecorder();
let url: string;

beforeAll(async () => {
  url = await recorder.start();
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], role: 'serve', config: TRANSPORT });
});
afterAll(async () => {
  recorder.release();
  await kit?.stop();
  await recorder.stop();
});


function startWorker(log: string[]): ChildProcess {
  const child = startWorkerProcess(kit, {
    PLUGINS_PATH: path.dirname(PROBE),
    DISABLED_PLUGINS: disabledPluginsExcept(['agents', 'flows']),
    EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
    FLOWS_ENGINE_CONCURRENCY: '3',
    BUS_POLL_INTERVAL_MS: '200',
  });
  child.stderr!.on('data', (chunk) => log.push(String(chunk)));
  return child;
}


it('a worker killed mid-flow loses and duplicates nothing: the next worker finishes every execution, no step twice', async () => {
  const flow = await deployFlow(kit, [
    { name: 'trigger' },
    { name: 'first', action: 'call', config: { url, note: 'first' } },
    { name: 'echo', action: 'echo', config: { value: '{{step2.received}}' } },
    { name: 'second', action: 'call', config: { url, note: 'second' } },
    { name: 'third', action: 'call', config: { url, note: 'third' } },
  ]);
  const uuids = await fire(kit.api, flow.versionUuid, Array.from({ length: EXECUTIONS }, (_, n) => ({ n })));
  const log: string[] = [];
  let crashing: ChildProcess | undefined;
  let healthy: ChildProcess | undefined;
  try {
    recorder.delayMs = 150;
    crashing = startWorker(log);
    // Some steps committed; then calls are held unanswered, so the kill lands while they are in flight.
    await waitFor(async () => recorder.calls.length, (n) => n >= EXECUTIONS, 60_000);
    recorder.holding = true;
    await waitFor(async () => recorder.inFlight, (n) => n >= 1, 10_000);
    crashing.kill('SIGKILL');
    await waitForExit(crashing);
    const callsByCrashed = recorder.calls.length;
    const committed = await sql(kit, 'select count(*)::int as n from flow_execution_steps');
    recorder.release(); // the answers go to a dead socket
    recorder.delayMs = 0;

    healthy = startWorker(log);
    const statuses = await waitFor(
      () => sql<{ status: string }>(kit, 'select status from flow_executions where uuid = any(?::uuid[])', [`{${uuids.join(',')}}`]),
      (rows) => rows.every((row) => row.status === 'succeeded' || row.status === 'failed'),
      90_000,
    );
    expect(statuses.map((row) => row.status)).toEqual(Array(EXECUTIONS).fill('succeeded'));

    // Every step recorded exactly once, and the killed worker had committed some of them.
    const steps = await sql<{ execution_uuid: string; step_uuid: string; n: number }>(
      kit,
      'select execution_uuid, step_uuid, count(*)::int as n from flow_execution_steps where execution_uuid = any(?::uuid[]) group by 1, 2',
      [`{${uuids.join(',')}}`],
    );
    expect(steps).toHaveLength(EXECUTIONS * 4);
    expect(steps.every((row) => row.n === 1)).toBe(true);
    expect(committed[0].n).toBeGreaterThan(0);

    // Every call carries the key of its execution and step; the only repeats are the calls
    // the killed worker had in flight, made again under the same key.
    for (const call of recorder.calls) expect(call.idempotencyKey).toBe(`${call.body.execution_uuid}:${call.body.step_uuid}`);
    const perKey = new Map<string, number>();
    for (const call of recorder.calls) perKey.set(call.idempotencyKey!, (perKey.get(call.idempotencyKey!) ?? 0) + 1);
    expect(perKey.size).toBe(EXECUTIONS * 3);
    const repeated = [...perKey].filter(([, n]) => n > 1);
    expect(repeated.length).toBeGreaterThanOrEqual(1);
    expect(repeated.every(([, n]) => n === 2)).toBe(true);
    // Each impure step commits before the next runs, so a crash repeats at most one call of an execution.
    const repeatsPerExecution = new Map<string, number>();
    for (const [key] of repeated) repeatsPerExecution.set(key.split(':')[0], (repeatsPerExecution.get(key.split(':')[0]) ?? 0) + 1);
    expect([...repeatsPerExecution.values()].every((n) => n === 1)).toBe(true);
    expect(callsByCrashed).toBeLessThan(recorder.calls.length);
    await kit.outboxDrained();

    healthy.kill('SIGTERM');
    expect(await waitForExit(healthy)).toBe(0);
  } catch (error) {
    // The same error, so the report still points at the assertion that failed.
    if (error instanceof Error) error.message += `\nworker stderr:\n${log.join('').slice(-4000)}`;
    throw error;
  } finally {
    crashing?.kill('SIGKILL');
    healthy?.kill('SIGKILL');
  }
}, 180_000);
