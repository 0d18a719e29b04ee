import type { Channel, ConsumeMessage } from 'amqplib';
import type { Envelope, RegisteredConsumer } from '../../../core/bus/bus-types';
import { ConsumerBatches, MAX_BATCH, prefetchFor } from '../../../core/bus/consumer-batches';
import type { BatchResult, Delivery } from '../../../core/bus/delivery';
import { Acks } from '../../../core/bus/transports/amqp-transport';

/** Stands in for the database side: records the batches, holds them until released, reports handler times. */
class FakeDelivery {
  readonly batches: number[][] = [];
  running = 0;
  maxRunning = 0;
  hold = false;
  handlerMs = 0.01;
  failNext?: Error;
  private readonly held: Array<() => void> = [];

  async deliverBatch(_consumer: RegisteredConsumer, envelopes: Envelope[]): Promise<BatchResult> {
    this.batches.push(envelopes.map((e) => (e.payload as { n: number }).n));
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    this.running--;
    const fail = this.failNext;
    this.failNext = undefined;
    if (fail) throw fail;
    return { outcomes: envelopes.map(() => 'handled'), handlersRun: envelopes.length, handlerMs: envelopes.length * this.handlerMs };
  }

  release(): void {
    this.hold = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

const consumer = (concurrency: number): RegisteredConsumer => ({
  name: 'test.consumer',
  topics: ['t.#'],
  concurrency,
  retry: { attempts: 3, backoff: { initialMs: 10, factor: 2, maxMs: 100 } },
  handler: () => {},
});
const envelope = (n: number): Envelope => ({ rowId: '', messageId: `m${n}`, topic: 't.x', payload: { n }, headers: {}, tenantUuid: null, consumer: null, attempt: 1 });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('consumer batches', () => {
  it('messages that arrive together share a batch once handlers are known to be quick, two batches at a time', async () => {
    const delivery = new FakeDelivery();
    const batches = new ConsumerBatches(consumer(4), delivery as unknown as Delivery, 4);
    // Handler times are unknown at first: one message alone.
    await expect(batches.submit(envelope(0))).resolves.toBe('handled');
    expect(delivery.batches).toEqual([[0]]);

    delivery.hold = true;
    const outcomes = Promise.all(range(1, 11).map((n) => batches.submit(envelope(n))));
    await settle();
    expect(delivery.batches).toEqual([[0], [1, 2, 3, 4], [5, 6, 7, 8]]);
    delivery.release();
    await expect(outcomes).resolves.toEqual(range(1, 11).map(() => 'handled'));
    expect(delivery.batches).toEqual([[0], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]);
    expect(delivery.maxRunning).toBe(2);
  });

  it('slow handlers get batches of one, `concurrency` of them at once', async () => {
    const delivery = new FakeDelivery();
    delivery.handlerMs = 50;
    const batches = new ConsumerBatches(consumer(3), delivery as unknown as Delivery, 8);
    await batches.submit(envelope(0));
    delivery.hold = true;
    const outcomes = Promise.all(range(1, 6).map((n) => batches.submit(envelope(n))));
    await settle();
    expect(delivery.batches).toEqual([[0], [1], [2], [3]]);
    delivery.release();
    await outcomes;
    expect(delivery.batches).toEqual([[0], [1], [2], [3], [4], [5]]);
    expect(delivery.maxRunning).toBe(3);
  });

  it("a batch whose transaction failed fails each of its messages (to be delivered again), and the next batches run", async () => {
    const delivery = new FakeDelivery();
    const batches = new ConsumerBatches(consumer(1), delivery as unknown as Delivery, 4);
    await batches.submit(envelope(0));
    delivery.failNext = new Error('database down');
    delivery.hold = true;
    const results = range(1, 7).map((n) => batches.submit(envelope(n)).then((outcome) => outcome, (error: Error) => error.message));
    await settle();
    delivery.release();
    expect(await Promise.all(results)).toEqual(['database down', 'database down', 'database down', 'database down', 'handled', 'handled']);
    expect(delivery.batches).toEqual([[0], [1, 2, 3, 4], [5, 6]]);
  });
});

describe("a consumer's pace (what its broker prefetch follows)", () => {
  it('turns quick once a batch of twice the concurrency fits the time budget, and slow again only once one of the concurrency no longer does', async () => {
    const delivery = new FakeDelivery();
    const paces: boolean[] = [];
    const batches = new ConsumerBatches(consumer(2), delivery as unknown as Delivery, 2, (quick) => paces.push(quick));
    // 5 ms budget / 2 ms per handler = 2.5 handlers: a batch of the concurrency fits, not one of twice it.
    delivery.handlerMs = 2;
    await batches.submit(envelope(0));
    expect(paces).toEqual([]);
    delivery.handlerMs = 0.1;
    for (let n = 1; n <= 12 && paces.length === 0; n++) await batches.submit(envelope(n));
    expect(paces).toEqual([true]);
    // 2 ms per handler again: a batch of the concurrency still fits, so still quick.
    delivery.handlerMs = 2;
    for (let n = 20; n < 40; n++) await batches.submit(envelope(n));
    expect(paces).toEqual([true]);
    delivery.handlerMs = 10;
    for (let n = 40; n <= 52 && paces.length === 1; n++) await batches.submit(envelope(n));
    expect(paces).toEqual([true, false]);
  });

  it('prefetch: twice the concurrency while slow; two full batches while quick (never less than twice the concurrency)', () => {
    expect(prefetchFor(consumer(1), false)).toBe(2);
    expect(prefetchFor(consumer(1), true)).toBe(2 * MAX_BATCH);
    expect(prefetchFor(consumer(50), true)).toBe(100);
  });

  it('a new bound from the transport applies to the next batches', async () => {
    const delivery = new FakeDelivery();
    const batches = new ConsumerBatches(consumer(1), delivery as unknown as Delivery, 1);
    await batches.submit(envelope(0));
    const arrive = async (from: number, to: number) => {
      delivery.hold = true;
      const outcomes = Promise.all(range(from, to).map((n) => batches.submit(envelope(n))));
      await settle();
      delivery.release();
      await outcomes;
    };
    await arrive(1, 7);
    expect(delivery.batches.slice(1).every((batch) => batch.length === 1)).toBe(true);
    batches.setMaxBatch(8);
    delivery.batches.length = 0;
    await arrive(10, 20);
    expect(Math.max(...delivery.batches.map((batch) => batch.length))).toBeGreaterThan(1);
  });
});

describe('acknowledgements of a consumer channel', () => {
  const setup = () => {
    const calls: string[] = [];
    const channel = {
      ack: (m: ConsumeMessage, allUpTo?: boolean) => calls.push(`ack ${m.fields.deliveryTag}${allUpTo ? ' and all before' : ''}`),
      nack: (m: ConsumeMessage, allUpTo?: boolean, requeue?: boolean) => calls.push(`nack ${m.fields.deliveryTag}${allUpTo ? ' and all before' : ''}${requeue ? ' requeue' : ''}`),
    };
    const acks = new Acks(channel as unknown as Channel);
    const messages = range(1, 7).map((tag) => ({ fields: { deliveryTag: tag } }) as ConsumeMessage);
    for (const m of messages) acks.received(m);
    return { calls, acks, m: (tag: number) => messages[tag - 1] };
  };

  it('acknowledges a batch that holds the oldest deliveries in one frame', async () => {
    const { calls, acks, m } = setup();
    acks.ack(m(1));
    acks.ack(m(2));
    acks.ack(m(3));
    await settle();
    expect(calls).toEqual(['ack 3 and all before']);
  });

  it('acknowledges one by one what finished before an older delivery, which never holds them up', async () => {
    const { calls, acks, m } = setup();
    acks.ack(m(3));
    acks.ack(m(4));
    await settle();
    expect(calls).toEqual(['ack 3', 'ack 4']);
    acks.ack(m(1));
    await settle();
    expect(calls).toEqual(['ack 3', 'ack 4', 'ack 1 and all before']);
    // 2 was requeued meanwhile: the next "all before" passes over it.
    acks.nack(m(2));
    acks.ack(m(5));
    await settle();
    expect(calls).toEqual(['ack 3', 'ack 4', 'ack 1 and all before', 'nack 2 requeue', 'ack 5 and all before']);
  });
});
