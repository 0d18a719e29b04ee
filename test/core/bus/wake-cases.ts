import path from 'node:path';
import { startTestKernel } from '../../../core/testing';
import { effects, waitFor } from './bus-test-helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/plugins/bus-probe');

/**
 * Relays are woken by the commit of what they must send, not by their poll: with a
 * poll of a minute, a message still arrives within seconds.
 */
export function wakeCases(transportConfig: Record<string, unknown>): void {
  const slowPoll = { ...transportConfig, busPollIntervalMs: 60_000 };

  it("a commit wakes the publishing process's own relay", async () => {
    const kit = await startTestKernel({ plugins: [PROBE], role: 'start', config: slowPoll });
    try {
      // The relay's first look (at start) is over: only a wake-up makes it look again.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { body } = await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.one', payloads: [{ n: 1 }] }).expect(200);
      const rows = await waitFor(() => effects(kit), (r) => r.length >= 1, 10_000);
      expect(rows.map((r) => r.message_id)).toEqual([body.data[0]]);
    } finally {
      await kit.stop();
    }
  });

  it('a commit in a serve process reaches the consumers of a worker process (without a broker: serve has no relay, its NOTIFY after the commit wakes the worker)', async () => {
    // serve without a broker has no relay; with one, its relay sends, so this worker only consumes.
    const serve = await startTestKernel({ plugins: [PROBE], role: 'serve', config: slowPoll });
    const worker = await startTestKernel({
      plugins: [PROBE],
      role: 'worker',
      tenant: 'second',
      config: { ...slowPoll, databaseUrl: serve.kernel.config.core.databaseUrl, busNamespace: serve.kernel.config.core.busNamespace },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { body } = await serve.api.post('/api/v1/probe/publish').send({ topic: 'probe.one', payloads: [{ n: 1 }] }).expect(200);
      const rows = await waitFor(() => effects(serve), (r) => r.length >= 1, 10_000);
      expect(rows.map((r) => r.message_id)).toEqual([body.data[0]]);
    } finally {
      await worker.stop();
      await serve.stop();
    }
  });
}
