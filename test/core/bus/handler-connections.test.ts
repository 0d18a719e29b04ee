import path from 'node:path';
import { startTestKernel } from '../../../core/testing';
import { HandlerConnections, handlerConnectionsFor } from '../../../core/bus/handler-connections';
import { effects, sleep, waitFor } from './bus-test-helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/plugins/bus-probe');

describe('HandlerConnections', () => {
  it('runs at most `size` transactions at once, the others in the order they asked', async () => {
    const slots = new HandlerConnections(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const work = (n: number) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(n);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return n;
      });
    const results = [1, 2, 3, 4].map(work);
    await sleep(10);
    expect(order).toEqual([1, 2]);
    releases.shift()!();
    await sleep(10);
    expect(order).toEqual([1, 2, 3]);
    while (releases.length > 0) {
      releases.shift()!();
      await sleep(10);
    }
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('frees the slot of a transaction that throws', async () => {
    const slots = new HandlerConnections(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('keeps two connections of the pool free unless the operator sets a number, and never goes below one', () => {
    expect(handlerConnectionsFor(10, 0)).toBe(8);
    expect(handlerConnectionsFor(2, 0)).toBe(1);
    expect(handlerConnectionsFor(10, 4)).toBe(4);
    expect(() => new HandlerConnections(0)).toThrow('positive integer');
  });
});

describe('handlers waiting on the outside world', () => {
  // The test kernel's pool has 5 connections; the probe's consumers together run 6 handlers at once (alpha 4, beta 2).
  it('leave the process connections for its HTTP requests (without the bound, the request waited for the pool and answered 503)', async () => {
    const kit = await startTestKernel({ plugins: [PROBE], role: 'start' });
    try {
      expect(kit.kernel.config.core.databasePoolMax).toBe(5);
      // Longer than the pool's acquire timeout (5 s): a request that had to wait for one of these connections would fail.
      const payloads = Array.from({ length: 6 }, (_, n) => ({ n, sleepMs: 7_000 }));
      await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.fanout', payloads }).expect(200);
      const busy = await waitFor(
        () => kit.kernel.orm.em.fork().getConnection().execute<{ n: number }[]>("select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction'"),
        (rows) => rows[0].n >= 3,
      );
      expect(busy[0].n).toBe(3);
      // A request that writes, while every handler connection is held.
      const { body } = await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.elsewhere', payloads: [{ n: 99 }] }).expect(200);
      expect(body.data).toHaveLength(1);
      await waitFor(() => effects(kit), (rows) => rows.length >= 12 + 1, 60_000);
    } finally {
      await kit.stop();
    }
  }, 90_000);
});
