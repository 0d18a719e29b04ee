import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { effects, sleep, waitFor } from './bus-test-helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/plugins/bus-probe');

/** Publishing and delivery semantics, the same over every transport. */
export function deliveryCases(transportConfig: Record<string, unknown>): void {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [PROBE], config: { ...transportConfig, busPollIntervalMs: 500 } });
  });
  afterAll(() => kit?.stop());
  beforeEach(async () => {
    await kit.kernel.orm.em.fork().getConnection().execute('truncate probe_effects, bus_inbox, bus_dead_letters');
  });
  const publish = (body: object) => kit.api.post('/api/v1/probe/publish').send(body);

  it('a rolled-back transaction publishes nothing', async () => {
    await publish({ topic: 'probe.one', payloads: [{ n: 1 }], rollback: true }).expect(409);
    await publish({ topic: 'probe.one', payloads: [{ n: 2 }] }).expect(200);
    const handled = await waitFor(() => effects(kit), (rows) => rows.length >= 1);
    await sleep(500);
    expect((await effects(kit)).map((e) => e.payload)).toEqual([{ n: 2 }]);
    expect(handled[0].tenant_uuid).toBe(kit.tenant.uuid);
    await kit.outboxDrained();
  });

  it('a committed message reaches each subscribed consumer exactly once', async () => {
    const payloads = Array.from({ length: 30 }, (_, n) => ({ n }));
    const { body } = await publish({ topic: 'probe.fanout', payloads }).expect(200);
    const rows = await waitFor(() => effects(kit), (r) => r.length >= 60);
    await sleep(300);
    const all = await effects(kit);
    expect(all).toHaveLength(60);
    for (const consumer of ['alpha', 'beta']) {
      const ids = all.filter((e) => e.consumer === consumer).map((e) => e.message_id);
      expect(new Set(ids)).toEqual(new Set(body.data));
    }
    expect(rows.every((e) => e.attempt === 1)).toBe(true);
  });

  it('publishMany: each message delivered once to each consumer, with its own id; rolled back, none', async () => {
    const payloads = Array.from({ length: 25 }, (_, n) => ({ n }));
    await publish({ topic: 'probe.fanout', payloads, together: true, rollback: true }).expect(409);
    const { body } = await publish({ topic: 'probe.fanout', payloads, together: true }).expect(200);
    expect(new Set(body.data).size).toBe(25);
    await waitFor(() => effects(kit), (r) => r.length >= 50);
    await sleep(300);
    const all = await effects(kit);
    expect(all).toHaveLength(50);
    for (const consumer of ['alpha', 'beta']) {
      const mine = all.filter((e) => e.consumer === consumer);
      expect(new Set(mine.map((e) => e.message_id))).toEqual(new Set(body.data));
      expect(mine.map((e) => e.payload.n).sort((a, b) => a - b)).toEqual(payloads.map((p) => p.n));
    }
  });

  it('retries a failing handler with backoff, with the same message id', async () => {
    const { body } = await publish({ topic: 'probe.retry', payloads: [{ fail: 2 }] }).expect(200);
    const [effect] = await waitFor(() => effects(kit), (r) => r.length === 1);
    expect(effect).toMatchObject({ message_id: body.data[0], attempt: 3 });
  });

  it('dead-letters a poison message after its attempts while the others flow; an operator can replay it', async () => {
    const good = Array.from({ length: 10 }, (_, n) => ({ n }));
    const { body } = await publish({ topic: 'probe.mixed', payloads: [{ fail: 'always', tag: 'poison' }, ...good] }).expect(200);
    await waitFor(() => effects(kit), (r) => r.length === 10);
    const letters = await waitFor(
      async () => (await kit.admin.get('/admin/v1/dead-letters').expect(200)).body.data.items,
      (items: any[]) => items.length === 1,
    );
    expect(letters[0]).toMatchObject({ message_id: body.data[0], consumer: 'bus-probe.alpha', topic: 'probe.mixed', attempts: 3, payload: { fail: 'always', tag: 'poison' } });
    expect(letters[0].error).toContain('probe failure on attempt 3');

    // Fix the "bug" (here: the payload) and replay.
    await kit.kernel.orm.em.fork().getConnection().execute(`update bus_dead_letters set payload = '{"tag":"poison","fixed":true}'::jsonb`);
    await kit.admin.post(`/admin/v1/dead-letters/${letters[0].id}/replay`).expect(200, { data: { message_id: body.data[0], consumer: 'bus-probe.alpha' } });
    const rows = await waitFor(() => effects(kit), (r) => r.length === 11);
    expect(rows[10]).toMatchObject({ message_id: body.data[0], attempt: 1, payload: { tag: 'poison', fixed: true } });
    await kit.admin.get('/admin/v1/dead-letters').expect(200).then((res) => expect(res.body.data.items).toEqual([]));
    await kit.admin.post(`/admin/v1/dead-letters/${letters[0].id}/replay`).expect(404);
  });

  it('delivers a delayed message on time (within a second)', async () => {
    const started = Date.now();
    await publish({ topic: 'probe.later', payloads: [{ late: true }], delay: 1500 }).expect(200);
    await sleep(1000);
    expect(await effects(kit)).toEqual([]);
    const [effect] = await waitFor(() => effects(kit), (r) => r.length === 1, 5000);
    const lateness = new Date(effect.handled_at).getTime() - started - 1500;
    expect(lateness).toBeGreaterThanOrEqual(-50);
    expect(lateness).toBeLessThan(1000);
  });

  it('a newer message with the same key replaces a pending one', async () => {
    await publish({ topic: 'probe.keyed', payloads: [{ v: 1 }], delay: 800, key: 'session-1' }).expect(200);
    await publish({ topic: 'probe.keyed', payloads: [{ v: 2 }], delay: 800, key: 'session-1' }).expect(200);
    await waitFor(() => effects(kit), (r) => r.length >= 1, 5000);
    await sleep(1000);
    expect((await effects(kit)).map((e) => e.payload)).toEqual([{ v: 2 }]);
  });

  it("a consumer's prepare runs first, as the tenant and outside any transaction, and its handler gets what it returned", async () => {
    const { body } = await publish({ topic: 'probe.prepared', payloads: [{ n: 1 }] }).expect(200);
    // `alpha` takes every probe topic: waiting for its effect too leaves nothing in flight for the next test.
    const all = await waitFor(() => effects(kit), (rows) => rows.some((e) => e.consumer === 'gamma') && rows.some((e) => e.consumer === 'alpha'));
    const [effect] = all.filter((e) => e.consumer === 'gamma');
    expect(effect).toMatchObject({ message_id: body.data[0], attempt: 1, tenant_uuid: kit.tenant.uuid });
    expect(effect.payload).toEqual({ n: 1, prepared: { inTransaction: false, tenant: kit.tenant.uuid, read: true } });
  });

  it('a message the consumer`s prepareIf turns down is handled without a prepare', async () => {
    const { body } = await publish({ topic: 'probe.prepared', payloads: [{ unprepared: true }] }).expect(200);
    const all = await waitFor(() => effects(kit), (rows) => rows.some((e) => e.consumer === 'gamma') && rows.some((e) => e.consumer === 'alpha'));
    const [effect] = all.filter((e) => e.consumer === 'gamma');
    expect(effect).toMatchObject({ message_id: body.data[0], attempt: 1 });
    expect(effect.payload).toEqual({ unprepared: true, prepared: null });
  });

  it('a failing prepare is retried with backoff as a failing handler is', async () => {
    const { body } = await publish({ topic: 'probe.prepared', payloads: [{ prepareFail: 2 }] }).expect(200);
    // `alpha` takes every probe topic: waiting for its effect too leaves nothing in flight for the next test.
    const all = await waitFor(() => effects(kit), (rows) => rows.some((e) => e.consumer === 'gamma') && rows.some((e) => e.consumer === 'alpha'));
    const [effect] = all.filter((e) => e.consumer === 'gamma');
    expect(effect).toMatchObject({ message_id: body.data[0], attempt: 3 });
    expect(effect.payload.prepared).toMatchObject({ inTransaction: false });
  });

  it('refuses to publish outside a transaction', async () => {
    await expect(kit.kernel.bus.publish('probe.x', {})).rejects.toThrow('must run inside a transaction');
  });
}
