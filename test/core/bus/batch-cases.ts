import path from 'node:path';
import amqp from 'amqplib';
import { topology } from '../../../core/bus/transports/amqp-transport';
import { runInContext } from '../../../core/context/request-context';
import type { Envelope, RegisteredConsumer } from '../../../core/bus/bus-types';
import { newUuid } from '../../../core/data/uuid';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { sleep, waitFor } from './bus-test-helpers';

const BATCH_PROBE = path.resolve(__dirname, 'fixtures/bus-batch-probe');
const WRITER = 'bus-batch-probe.writer';

const sql = (kit: TestKernel, query: string, params: unknown[] = []): Promise<any[]> => kit.kernel.orm.em.fork().getConnection().execute(query, params);
const effects = (kit: TestKernel) => sql(kit, 'select message_id, payload, attempt, tenant_uuid from batch_probe_effects order by id');
const inbox = async (kit: TestKernel) => (await sql(kit, 'select message_id from bus_inbox where consumer = ?', [WRITER])).map((r) => r.message_id).sort();
const outbox = (kit: TestKernel) => sql(kit, 'select message_id, topic, payload, tenant_uuid, consumer, attempt, due_at > clock_timestamp() as delayed from bus_outbox order by created_at, topic');
const deadLetters = (kit: TestKernel) => sql(kit, 'select message_id, consumer, attempts, error from bus_dead_letters');

/**
 * A batch, as the transports hand it to the consumer's delivery: one inbox
 * transaction, a savepoint per handler. Driven directly (a `cli` kernel: no relay,
 * no transport), so what each batch holds is exactly what the test says, and retries
 * stay in the outbox where the test can read them.
 */
export function batchDeliveryCases(): void {
  let kit: TestKernel;
  let other: TestTenant;
  let writer: RegisteredConsumer;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [BATCH_PROBE], role: 'cli' });
    other = await kit.createTenant('other');
    writer = kit.kernel.bus.consumers.find((c) => c.name === WRITER)!;
  });
  afterAll(() => kit?.stop());
  beforeEach(async () => {
    await sql(kit, 'truncate batch_probe_effects, bus_inbox, bus_outbox, bus_dead_letters');
  });

  const envelope = (n: number, extra: Partial<Envelope> = {}, payload: Record<string, unknown> = {}): Envelope => ({
    rowId: '',
    messageId: newUuid(),
    topic: 'batch.item',
    payload: { n, ...payload },
    headers: {},
    tenantUuid: kit.tenant.uuid,
    consumer: null,
    attempt: 1,
    ...extra,
  });
  const deliver = (envelopes: Envelope[]) => kit.kernel.bus.delivery.deliverBatch(writer, envelopes);

  it("a failing handler in a batch rolls back only its own writes and publishes; the others' and their inbox records commit", async () => {
    const a = envelope(1);
    const b = envelope(2, {}, { fail: true });
    const c = envelope(3, { tenantUuid: other.tenant.uuid });
    const { outcomes } = await deliver([a, b, c]);
    expect(outcomes).toEqual(['handled', 'retry', 'handled']);

    // Each handler ran as its message's tenant; b's effect is gone with its savepoint.
    expect(await effects(kit)).toEqual([
      { message_id: a.messageId, payload: { n: 1 }, attempt: 1, tenant_uuid: kit.tenant.uuid },
      { message_id: c.messageId, payload: { n: 3 }, attempt: 1, tenant_uuid: other.tenant.uuid },
    ]);
    expect(await inbox(kit)).toEqual([a.messageId, c.messageId].sort());
    const rows = await outbox(kit);
    // a's and c's publishes, as their tenants; b's publish vanished; b's retry is for this consumer alone, delayed.
    expect(rows.filter((r) => r.topic.startsWith('followup.'))).toEqual([
      expect.objectContaining({ topic: 'followup.1', payload: { of: a.messageId }, tenant_uuid: kit.tenant.uuid, consumer: null }),
      expect.objectContaining({ topic: 'followup.3', payload: { of: c.messageId }, tenant_uuid: other.tenant.uuid, consumer: null }),
    ]);
    expect(rows.filter((r) => !r.topic.startsWith('followup.'))).toEqual([
      { message_id: b.messageId, topic: 'batch.item', payload: { n: 2, fail: true }, tenant_uuid: kit.tenant.uuid, consumer: WRITER, attempt: 2, delayed: true },
    ]);
    expect(await deadLetters(kit)).toEqual([]);
  });

  it("dead-letters a batch's message on its last attempt with its error, while the rest of the batch commits", async () => {
    const d = envelope(4, { attempt: 2 }, { fail: true });
    const e = envelope(5);
    const { outcomes } = await deliver([d, e]);
    expect(outcomes).toEqual(['dead', 'handled']);
    const letters = await deadLetters(kit);
    expect(letters).toEqual([{ message_id: d.messageId, consumer: WRITER, attempts: 2, error: expect.stringContaining('batch probe failure of 4') }]);
    expect((await effects(kit)).map((r) => r.message_id)).toEqual([e.messageId]);
    // No inbox record for the dead letter: a replay (same message id) must run the handler again.
    expect(await inbox(kit)).toEqual([e.messageId]);
    expect((await outbox(kit)).map((r) => r.topic)).toEqual(['followup.5']);
  });

  it('a message alone (no savepoint): its failure leaves no write, publish or inbox record, then its retry or dead letter; handled, it counts once', async () => {
    const failing = envelope(6, {}, { fail: true });
    expect((await deliver([failing])).outcomes).toEqual(['retry']);
    expect(await effects(kit)).toEqual([]);
    expect(await inbox(kit)).toEqual([]);
    expect(await outbox(kit)).toEqual([
      { message_id: failing.messageId, topic: 'batch.item', payload: { n: 6, fail: true }, tenant_uuid: kit.tenant.uuid, consumer: WRITER, attempt: 2, delayed: true },
    ]);

    const last = envelope(7, { attempt: 2 }, { fail: true });
    expect((await deliver([last])).outcomes).toEqual(['dead']);
    expect(await deadLetters(kit)).toEqual([{ message_id: last.messageId, consumer: WRITER, attempts: 2, error: expect.stringContaining('batch probe failure of 7') }]);
    expect(await effects(kit)).toEqual([]);
    expect(await inbox(kit)).toEqual([]);

    const fine = envelope(8);
    expect((await deliver([fine])).outcomes).toEqual(['handled']);
    expect((await deliver([fine])).outcomes).toEqual(['duplicate']);
    expect((await effects(kit)).map((r) => r.message_id)).toEqual([fine.messageId]);
    expect(await inbox(kit)).toEqual([fine.messageId]);
    expect((await outbox(kit)).map((r) => r.topic).sort()).toEqual(['batch.item', 'followup.8']);
  });

  it('a redelivered batch has no second effect; the same message twice in one batch runs once', async () => {
    const a = envelope(1);
    const b = envelope(2);
    expect((await deliver([a, b])).outcomes).toEqual(['handled', 'handled']);
    const c = envelope(3);
    // a and b again (the broker redelivers after a lost ack), c new and in the batch twice.
    expect((await deliver([a, c, b, c])).outcomes).toEqual(['duplicate', 'handled', 'duplicate', 'duplicate']);
    expect((await effects(kit)).map((r) => r.message_id)).toEqual([a.messageId, b.messageId, c.messageId]);
    expect(await inbox(kit)).toEqual([a.messageId, b.messageId, c.messageId].sort());
    expect((await outbox(kit)).map((r) => r.topic).sort()).toEqual(['followup.1', 'followup.2', 'followup.3']);
  });

  it("a message whose tenant is gone is retried alone; the batch's others are handled", async () => {
    const a = envelope(1);
    const orphan = envelope(2, { tenantUuid: newUuid() });
    expect((await deliver([a, orphan])).outcomes).toEqual(['handled', 'retry']);
    expect((await effects(kit)).map((r) => r.message_id)).toEqual([a.messageId]);
    expect(await inbox(kit)).toEqual([a.messageId]);
    expect((await outbox(kit)).map((r) => [r.topic, r.consumer, r.attempt])).toEqual([
      ['followup.1', null, 1],
      ['batch.item', WRITER, 2],
    ]);
  });

  it('a consumer with `inbox: false` keeps no inbox record: a message delivered again runs its handler again', async () => {
    const noInbox = kit.kernel.bus.consumers.find((c) => c.name === 'bus-batch-probe.no-inbox')!;
    await sql(kit, 'truncate batch_probe_transactions');
    const a = envelope(1, { topic: 'tally.item' });
    expect((await kit.kernel.bus.delivery.deliverBatch(noInbox, [a])).outcomes).toEqual(['handled']);
    expect((await kit.kernel.bus.delivery.deliverBatch(noInbox, [a, envelope(2, { topic: 'tally.item' })])).outcomes).toEqual(['handled', 'handled']);
    expect((await sql(kit, 'select message_id from batch_probe_transactions')).filter((r) => r.message_id === a.messageId)).toHaveLength(2);
    expect(await sql(kit, 'select message_id from bus_inbox where consumer = ?', [noInbox.name])).toEqual([]);
  });

  describe('a batch consumer (consumeBatch)', () => {
    const LOTS = 'bus-batch-probe.lots';
    let lots: RegisteredConsumer;
    beforeAll(() => {
      lots = kit.kernel.bus.consumers.find((c) => c.name === LOTS)!;
    });
    beforeEach(() => sql(kit, 'truncate batch_probe_calls'));
    const lot = (n: number, extra: Partial<Envelope> = {}, payload: Record<string, unknown> = {}) => envelope(n, { topic: 'lot.item', ...extra }, payload);
    const calls = () => sql(kit, 'select call, message_id, n, tenant_uuid, tx::text as tx from batch_probe_calls order by id');
    const lotInbox = async () => (await sql(kit, 'select message_id from bus_inbox where consumer = ?', [LOTS])).map((r) => r.message_id).sort();

    it("gets each tenant's messages of a batch in one call, in arrival order, as that tenant, in the batch's one transaction", async () => {
      const a = lot(1);
      const b = lot(2, { tenantUuid: other.tenant.uuid });
      const c = lot(3);
      const { outcomes } = await kit.kernel.bus.delivery.deliverBatch(lots, [a, b, c]);
      expect(outcomes).toEqual(['handled', 'handled', 'handled']);
      const rows = await calls();
      expect(rows.map((r) => [r.n, r.tenant_uuid])).toEqual([
        [1, kit.tenant.uuid],
        [3, kit.tenant.uuid],
        [2, other.tenant.uuid],
      ]);
      expect(rows[0].call).toBe(rows[1].call);
      expect(rows[2].call).not.toBe(rows[0].call);
      expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
      expect(await lotInbox()).toEqual([a.messageId, b.messageId, c.messageId].sort());
      const followups = (await outbox(kit)).filter((r) => r.topic === 'followup.lot');
      expect(followups.map((r) => [r.payload.of, r.tenant_uuid])).toEqual([
        [a.messageId, kit.tenant.uuid],
        [c.messageId, kit.tenant.uuid],
        [b.messageId, other.tenant.uuid],
      ]);
    });

    it('a call that throws is rolled back and its messages handled again one per call: the bad one alone fails and retries', async () => {
      const a = lot(1);
      const bad = lot(2, {}, { fail: true });
      const c = lot(3);
      const { outcomes } = await kit.kernel.bus.delivery.deliverBatch(lots, [a, bad, c]);
      expect(outcomes).toEqual(['handled', 'retry', 'handled']);
      // The failed call of three left nothing: a and c each once, in a call of their own.
      const rows = await calls();
      expect(rows.map((r) => r.n)).toEqual([1, 3]);
      expect(rows[0].call).not.toBe(rows[1].call);
      expect(await lotInbox()).toEqual([a.messageId, c.messageId].sort());
      const rest = await outbox(kit);
      expect(rest.filter((r) => r.topic === 'followup.lot').map((r) => r.payload.of)).toEqual([a.messageId, c.messageId]);
      expect(rest.filter((r) => r.topic === 'lot.item')).toEqual([
        { message_id: bad.messageId, topic: 'lot.item', payload: { n: 2, fail: true }, tenant_uuid: kit.tenant.uuid, consumer: LOTS, attempt: 2, delayed: true },
      ]);
    });

    it('a message alone is a call of one; delivered again it is a duplicate', async () => {
      const a = lot(1);
      expect((await kit.kernel.bus.delivery.deliverBatch(lots, [a])).outcomes).toEqual(['handled']);
      expect((await kit.kernel.bus.delivery.deliverBatch(lots, [a])).outcomes).toEqual(['duplicate']);
      expect((await calls()).map((r) => r.n)).toEqual([1]);
    });
  });
}

/** Over a real transport: a burst of messages (handled in batches) with failing ones among them. */
export function batchTransportCases(transportConfig: Record<string, unknown>): void {
  it("a failing handler among a burst of messages loses only its own effects; every other message's commit once", async () => {
    const kit = await startTestKernel({ plugins: [BATCH_PROBE], config: { ...transportConfig, busPollIntervalMs: 500 } });
    try {
      const failing = new Set([7, 19, 33]);
      const ids: string[] = [];
      await runInContext({ tenant: kit.tenant }, () =>
        kit.kernel.orm.em.fork().transactional(async () => {
          for (let n = 0; n < 60; n++) ids.push(await kit.kernel.bus.publish('batch.burst', failing.has(n) ? { n, fail: true } : { n }));
        }),
      );
      const good = ids.filter((_, n) => !failing.has(n));
      const bad = ids.filter((_, n) => failing.has(n));
      // Each failing message leaves a delayed retry (60 s backoff) for its consumer.
      await waitFor(() => outbox(kit), (rows) => rows.filter((r) => r.consumer === WRITER).length === bad.length);
      await waitFor(() => effects(kit), (rows) => rows.length >= good.length);
      await sleep(500);
      const rows = await effects(kit);
      expect(rows.map((r) => r.message_id).sort()).toEqual([...good].sort());
      expect(rows.every((r) => r.tenant_uuid === kit.tenant.uuid && r.attempt === 1)).toBe(true);
      expect(await inbox(kit)).toEqual([...good].sort());
      const retries = (await outbox(kit)).filter((r) => r.consumer === WRITER);
      expect(retries.map((r) => r.message_id).sort()).toEqual([...bad].sort());
      expect(retries.every((r) => r.attempt === 2 && r.delayed)).toBe(true);
    } finally {
      await kit.stop();
    }
  });
}

/** RabbitMQ only: a consumer's prefetch follows its handlers' pace. */
export function prefetchCases(amqpConfig: Record<string, unknown>): void {
  it('a consumer of quick handlers is subscribed with a larger prefetch, so its batches outgrow its concurrency', async () => {
    const kit = await startTestKernel({ plugins: [BATCH_PROBE], config: { ...amqpConfig, busPollIntervalMs: 500 } });
    const counter = 'bus-batch-probe.counter';
    try {
      // Concurrency 1: until its handlers are known to be quick, twice that, and batches of one.
      expect(kit.kernel.bus.brokerPrefetchOf(counter)).toBe(2);
      await runInContext({ tenant: kit.tenant }, () =>
        kit.kernel.orm.em.fork().transactional(() => kit.kernel.bus.publishMany('count.burst', Array.from({ length: 300 }, (_, n) => ({ n })))),
      );
      await waitFor(() => sql(kit, 'select count(*)::int as n from batch_probe_transactions'), ([row]) => row.n >= 300, 30_000);
      expect(kit.kernel.bus.brokerPrefetchOf(counter)).toBe(64);
      const [{ largest }] = await sql(kit, 'select max(n)::int as largest from (select count(*) as n from batch_probe_transactions group by tx) as batches');
      expect(largest).toBeGreaterThan(1);
      // Each message once, whatever the subscription that delivered it.
      const [{ distinct, n }] = await sql(kit, 'select count(distinct message_id)::int as distinct, count(*)::int as n from batch_probe_transactions');
      expect({ distinct, n }).toEqual({ distinct: 300, n: 300 });
    } finally {
      await kit.stop();
    }
  });
}

/** RabbitMQ only: a message the relay could not have sent is dropped, and the consumer goes on. */
export function malformedMessageCases(amqpConfig: Record<string, unknown>): void {
  it('drops a message that is not one of the bus\'s (no message id, a bad tenant header, not JSON) and goes on with the others', async () => {
    const kit = await startTestKernel({ plugins: [BATCH_PROBE], config: { ...amqpConfig, busPollIntervalMs: 500 } });
    const connection = await amqp.connect(String(amqpConfig.amqpUrl));
    try {
      // A confirm channel: the three are in the queue before the test goes on, whatever the broker's load.
      const channel = await connection.createConfirmChannel();
      const queue = topology(kit.kernel.config.core.busNamespace).queue(WRITER);
      channel.sendToQueue(queue, Buffer.from('{"n":1}'));
      channel.sendToQueue(queue, Buffer.from('{"n":2}'), { messageId: newUuid(), headers: { 'x-switchboard-tenant': 'acme' } });
      channel.sendToQueue(queue, Buffer.from('not json'), { messageId: newUuid() });
      await channel.waitForConfirms();
      await channel.close();
      const [id] = await runInContext({ tenant: kit.tenant }, () =>
        kit.kernel.orm.em.fork().transactional(async () => [await kit.kernel.bus.publish('batch.after', { n: 4 })]),
      );
      const rows = await waitFor(() => effects(kit), (r) => r.length >= 1);
      expect(rows.map((r) => r.message_id)).toEqual([id]);
      const dropped = await waitFor(
        async () => kit.logs.filter((entry) => entry.message === 'dropping a malformed message'),
        (entries) => entries.length >= 3,
      );
      expect(dropped).toHaveLength(3);
    } finally {
      await connection.close().catch(() => {});
      await kit.stop();
    }
  });
}
