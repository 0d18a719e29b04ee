import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestKernel, startWorkerProcess, waitForExit, type TestKernel } from '../../../core/testing';
import { effects, sleep, waitFor } from './bus-test-helpers';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/plugins');
const PROBE = path.join(FIXTURES, 'bus-probe');

/** Several worker processes on one database (and broker): shared work, crashes. */

export function workerCases(transportConfig: Record<string, unknown>): void {
  it('two workers share the work and handle each message once', async () => {
    const shared = { ...transportConfig, busRelayBatchSize: 10, busPollIntervalMs: 500 };
    const first = await startTestKernel({ plugins: [PROBE], role: 'start', config: { ...shared, 'bus-probe': { label: 'one' } } });
    const second = await startTestKernel({
      plugins: [PROBE],
      role: 'worker',
      tenant: 'second',
      config: { ...shared, databaseUrl: first.kernel.config.core.databaseUrl, busNamespace: first.kernel.config.core.busNamespace, 'bus-probe': { label: 'two' } },
    });
    try {
      const payloads = Array.from({ length: 200 }, (_, n) => ({ n, sleepMs: 10 }));
      const { body } = await first.api.post('/api/v1/probe/publish').send({ topic: 'probe.work', payloads }).expect(200);
      await waitFor(() => effects(first), (rows) => rows.length >= 200, 30_000);
      await sleep(500);
      const rows = await effects(first);
      expect(rows).toHaveLength(200);
      expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set(body.data));
      expect(new Set(rows.map((r) => r.label))).toEqual(new Set(['one', 'two']));
    } finally {
      await second.stop();
      await first.stop();
    }
  });

  it('a worker killed mid-handler loses nothing and the redelivery has one effect', async () => {
    // This process only publishes (serve); the work happens in real worker processes.
    const kit = await startTestKernel({ plugins: [PROBE], role: 'serve', config: { ...transportConfig } });
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-crash-')), 'in-handler');
    const worker = (extra: Record<string, string>) => startWorkerProcess(kit, { PLUGINS_PATH: FIXTURES, BUS_POLL_INTERVAL_MS: '500', ...extra });
    let crashing: ChildProcess | undefined;
    let healthy: ChildProcess | undefined;
    try {
      crashing = worker({ PROBE_CRASH_MARKER: marker });
      const { body } = await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.crash', payloads: [{ crash: true }] }).expect(200);
      await waitFor(async () => fs.existsSync(marker), Boolean, 60_000);
      crashing.kill('SIGKILL');
      await waitForExit(crashing);
      expect(await effects(kit)).toEqual([]); // its transaction died with it

      healthy = worker({});
      const rows = await waitFor(() => effects(kit), (r) => r.length >= 1, 60_000);
      await sleep(3000); // past another lease: nothing is delivered twice
      expect(await effects(kit)).toHaveLength(1);
      expect(rows[0]).toMatchObject({ message_id: body.data[0], pid: healthy.pid });
      await kit.outboxDrained();

      healthy.kill('SIGTERM');
      const code = await waitForExit(healthy);
      expect(code).toBe(0);
    } finally {
      crashing?.kill('SIGKILL');
      healthy?.kill('SIGKILL');
      fs.rmSync(path.dirname(marker), { recursive: true, force: true });
      await kit.stop();
    }
  }, 180_000);
}
