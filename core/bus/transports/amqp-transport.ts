import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import type { Logger } from '../../logging/logger';
import type { Envelope, RegisteredConsumer } from '../bus-types';
import { ConsumerBatches, prefetchFor } from '../consumer-batches';
import { renamesOf } from '../renamed-consumers';
import type { Delivery } from '../delivery';
import type { OutboxStore } from '../outbox-store';
import type { Transport } from './transport';

// The topic travels in a header too: a retry is sent straight to one queue, so its routing key is the queue's name.
const HEADER = { tenant: 'x-switchboard-tenant', attempt: 'x-switchboard-attempt', consumer: 'x-switchboard-consumer', topic: 'x-switchboard-topic' };

const HEADER_NAMES = new Set(Object.values(HEADER));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A batch holds at most half the prefetch: the next one fills while it runs. */
const maxBatchOf = (prefetch: number) => Math.max(1, Math.floor(prefetch / 2));

/** A consumer's subscription on its own channel; `changing` serializes changes of its prefetch. */
interface Subscription {
  channel: Channel;
  acks: Acks;
  consumerTag: string;
  prefetch: number;
  changing: Promise<void>;
}

/** The broker objects of one installation: `<namespace>` exchange, `<namespace>.<consumer>` queues. */
export const topology = (namespace: string) => ({
  exchange: namespace,
  queue: (consumer: string) => `${namespace}.${consumer}`,
});

/**
 * RabbitMQ: a durable topic exchange, one durable quorum queue per consumer bound to
 * its topics, persistent messages published on a confirm channel. Rows leave the
 * outbox only after the broker confirms them. When the broker goes away the transport
 * reports no capacity (rows wait in the outbox) and reconnects with backoff.
 */
export class AmqpTransport implements Transport {
  readonly name = 'amqp' as const;
  private connection?: ChannelModel;
  private publisher?: ConfirmChannel;
  private readonly subscriptions = new Map<string, Subscription>();
  /** Consumers whose handlers are quick (ConsumerBatches judges): their prefetch is larger (prefetchFor). */
  private readonly quick = new Set<string>();
  private consuming = false;
  private stopped = false;
  private reconnectDelayMs = 500;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly batches = new Map<string, ConsumerBatches>();
  private readonly inHandlers = new Set<Promise<unknown>>();

  private readonly names: ReturnType<typeof topology>;

  constructor(
    private readonly url: string,
    namespace: string,
    private readonly consumers: readonly RegisteredConsumer[],
    delivery: Delivery,
    private readonly outbox: OutboxStore,
    private readonly logger: Logger,
    private readonly batchSize: number,
    private readonly onCapacity: () => void,
  ) {
    for (const consumer of consumers) {
      const batches = new ConsumerBatches(consumer, delivery, maxBatchOf(prefetchFor(consumer, false)), (quick) => this.paceChanged(consumer, quick));
      this.batches.set(consumer.name, batches);
    }
    this.names = topology(namespace);
  }

  /** Connects in the background; boot does not wait for a broker that is down. */
  async connect(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      this.logger.warn('cannot reach the broker; retrying', { error: String(error) });
      this.scheduleReconnect();
    }
  }

  async startConsuming(): Promise<void> {
    this.consuming = true;
    if (this.connection) await this.consume(this.connection);
  }

  capacity(): number {
    return this.publisher ? this.batchSize : 0;
  }

  async send(envelopes: Envelope[]): Promise<void> {
    const channel = this.publisher;
    const ids = envelopes.map((e) => e.rowId);
    if (!channel) {
      await this.outbox.release(ids);
      return;
    }
    try {
      for (const envelope of envelopes) {
        const content = Buffer.from(JSON.stringify(envelope.payload ?? null));
        const options = {
          persistent: true,
          messageId: envelope.messageId,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          headers: {
            ...envelope.headers,
            [HEADER.attempt]: envelope.attempt,
            [HEADER.topic]: envelope.topic,
            ...(envelope.tenantUuid ? { [HEADER.tenant]: envelope.tenantUuid } : {}),
            ...(envelope.consumer ? { [HEADER.consumer]: envelope.consumer } : {}),
          },
        };
        // A retry goes to its consumer's queue alone; a new message to every bound queue.
        if (envelope.consumer) channel.sendToQueue(this.names.queue(envelope.consumer), content, options);
        else channel.publish(this.names.exchange, envelope.topic, content, options);
      }
      await channel.waitForConfirms();
    } catch (error) {
      await this.outbox.release(ids).catch(() => {});
      throw error;
    }
    // Confirmed: deleted by the relay's next claim (or a moment later).
    this.outbox.complete(ids);
  }

  async check(): Promise<void> {
    if (!this.publisher) throw new Error('broker not connected');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.consuming = false;
    clearTimeout(this.reconnectTimer);
    for (const { channel } of this.subscriptions.values()) await channel.close().catch(() => {});
    this.subscriptions.clear();
    await Promise.allSettled([...this.inHandlers]);
    await this.connection?.close().catch(() => {});
    this.connection = undefined;
    this.publisher = undefined;
  }

  private async open(): Promise<void> {
    const connection = await amqp.connect(this.url, { clientProperties: { connection_name: `switchboard ${process.pid}` } });
    connection.on('error', (error) => this.logger.warn('broker connection error', { error: String(error) }));
    connection.on('close', () => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      this.publisher = undefined;
      this.subscriptions.clear();
      if (!this.stopped) {
        this.logger.warn('broker connection closed; reconnecting');
        this.scheduleReconnect();
      }
    });
    const publisher = await connection.createConfirmChannel();
    publisher.on('error', (error) => this.logger.warn('broker channel error', { error: String(error) }));
    // A channel error (a publish to an exchange someone deleted: 404) closes the channel, not
    // the connection: without a new one this process would never publish again. Reconnecting
    // declares the topology anew and the relay sends what it released meanwhile.
    publisher.on('close', () => {
      if (this.publisher !== publisher || this.stopped) return;
      this.logger.warn('broker publishing channel closed; reconnecting');
      this.publisher = undefined;
      connection.close().catch(() => {});
    });
    // Declared by every process, publisher included: a message published before any
    // worker started still finds its queues.
    await publisher.assertExchange(this.names.exchange, 'topic', { durable: true });
    for (const consumer of this.consumers) {
      await publisher.assertQueue(this.names.queue(consumer.name), { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      for (const topic of consumer.topics) await publisher.bindQueue(this.names.queue(consumer.name), this.names.exchange, topic);
    }
    // After the new queues are bound: from here on a message reaches a former queue only as a copy.
    for (const { former, consumer } of renamesOf(this.consumers)) await this.emptyFormerQueue(connection, publisher, former, consumer);
    this.connection = connection;
    this.publisher = publisher;
    this.reconnectDelayMs = 500;
    if (this.consuming) await this.consume(connection);
    this.logger.info('connected to the broker');
    this.onCapacity();
  }

  /**
   * A renamed consumer's old queue (ConsumerOptions.formerly): its messages are moved to
   * the new queue, each acknowledged once the broker confirmed its copy, then the queue
   * is deleted. A message moved twice, or published to both queues while both were
   * bound, is handled once: the inbox knows it by id under the new name.
   */
  private async emptyFormerQueue(connection: ChannelModel, publisher: ConfirmChannel, former: string, consumer: string): Promise<void> {
    const queue = this.names.queue(former);
    // A missing queue closes the channel that asked (404): ask on one of its own.
    const probe = await connection.createChannel();
    probe.on('error', () => {});
    const exists = await probe.checkQueue(queue).then(
      () => true,
      () => false,
    );
    if (!exists) return;
    let moved = 0;
    for (let message = await probe.get(queue, { noAck: false }); message; message = await probe.get(queue, { noAck: false })) {
      publisher.sendToQueue(this.names.queue(consumer), message.content, { ...message.properties, headers: { ...message.properties.headers, [HEADER.consumer]: consumer } });
      await publisher.waitForConfirms();
      probe.ack(message);
      moved++;
    }
    await probe.deleteQueue(queue);
    await probe.close();
    this.logger.info('emptied and deleted the queue of a renamed consumer', { former, consumer, moved });
  }

  private async consume(connection: ChannelModel): Promise<void> {
    for (const consumer of this.consumers) {
      const channel = await connection.createChannel();
      channel.on('error', (error) => this.logger.warn('consumer channel error', { consumer: consumer.name, error: String(error) }));
      const prefetch = prefetchFor(consumer, this.quick.has(consumer.name));
      await channel.prefetch(prefetch);
      const acks = new Acks(channel);
      const { consumerTag } = await this.subscribe(channel, acks, consumer);
      this.subscriptions.set(consumer.name, { channel, acks, consumerTag, prefetch, changing: Promise.resolve() });
    }
  }

  private subscribe(channel: Channel, acks: Acks, consumer: RegisteredConsumer) {
    return channel.consume(this.names.queue(consumer.name), (message) => message && this.handle(acks, consumer, message), { noAck: false });
  }

  /**
   * The consumer's handlers turned quick or slow: its batches' bound follows at once,
   * its prefetch by subscribing again on the same channel with the new one (RabbitMQ
   * applies a consumer's prefetch when it subscribes; quorum queues have no per-channel
   * prefetch). Messages delivered to the old subscription stay this channel's to
   * acknowledge; nothing is redelivered.
   */
  private paceChanged(consumer: RegisteredConsumer, quick: boolean): void {
    if (quick) this.quick.add(consumer.name);
    else this.quick.delete(consumer.name);
    const prefetch = prefetchFor(consumer, quick);
    this.batches.get(consumer.name)!.setMaxBatch(maxBatchOf(prefetch));
    this.logger.debug('consumer prefetch follows its handlers', { consumer: consumer.name, quick, prefetch });
    const subscription = this.subscriptions.get(consumer.name);
    if (!subscription) return; // not consuming now: the next subscription takes the new prefetch
    subscription.changing = subscription.changing
      .then(() => this.resubscribe(consumer, subscription))
      .catch((error) => {
        // The channel closed meanwhile: the reconnection subscribes again with the current prefetch.
        this.logger.debug('changing a consumer prefetch failed', { consumer: consumer.name, error: String(error) });
      });
  }

  private async resubscribe(consumer: RegisteredConsumer, subscription: Subscription): Promise<void> {
    const prefetch = prefetchFor(consumer, this.quick.has(consumer.name));
    if (subscription.prefetch === prefetch || this.subscriptions.get(consumer.name) !== subscription) return;
    await subscription.channel.cancel(subscription.consumerTag);
    await subscription.channel.prefetch(prefetch);
    subscription.prefetch = prefetch;
    subscription.consumerTag = (await this.subscribe(subscription.channel, subscription.acks, consumer)).consumerTag;
  }

  /** The prefetch a consumer is subscribed with now (undefined while not subscribed); for tests and diagnostics. */
  prefetchOf(consumerName: string): number | undefined {
    return this.subscriptions.get(consumerName)?.prefetch;
  }

  private handle(acks: Acks, consumer: RegisteredConsumer, message: ConsumeMessage): void {
    acks.received(message);
    const envelope = this.toEnvelope(message);
    if (!envelope) {
      // Not a message the relay sent (no message id, not JSON, ...): no consumer could ever handle it.
      this.logger.error('dropping a malformed message', { consumer: consumer.name, message_id: message.properties.messageId, routing_key: message.fields.routingKey });
      acks.ack(message);
      return;
    }
    const run = this.batches
      .get(consumer.name)!
      .submit(envelope)
      .then(
        () => acks.ack(message),
        async (error) => {
          // Delivery itself failed (the database is down): put it back after a pause.
          this.logger.warn('delivery failed; requeueing', { consumer: consumer.name, error: String(error) });
          await new Promise((resolve) => setTimeout(resolve, 1000));
          acks.nack(message);
        },
      )
      .catch(() => {
        /* the channel closed under us: the broker redelivers the message */
      })
      .finally(() => this.inHandlers.delete(run));
    this.inHandlers.add(run);
  }

  private toEnvelope(message: ConsumeMessage): Envelope | undefined {
    const headers = { ...(message.properties.headers ?? {}) } as Record<string, unknown>;
    const messageId = String(message.properties.messageId ?? '');
    const tenantUuid = (headers[HEADER.tenant] as string | undefined) ?? null;
    const attempt = Number(headers[HEADER.attempt] ?? 1);
    // What the relay always sends; anything else would fail its whole batch on every delivery.
    if (!UUID.test(messageId) || (tenantUuid !== null && !UUID.test(String(tenantUuid))) || !Number.isInteger(attempt) || attempt < 1) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(message.content.toString('utf8'));
    } catch {
      return undefined;
    }
    const envelope: Envelope = {
      rowId: '',
      messageId,
      topic: String(headers[HEADER.topic] ?? message.fields.routingKey),
      payload,
      headers: {},
      tenantUuid: tenantUuid === null ? null : String(tenantUuid),
      consumer: (headers[HEADER.consumer] as string | undefined) ?? null,
      attempt,
    };
    for (const [key, value] of Object.entries(headers)) if (!HEADER_NAMES.has(key)) envelope.headers[key] = String(value);
    return envelope;
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 10_000);
    this.reconnectTimer = setTimeout(async () => {
      this.reconnectTimer = undefined;
      try {
        await this.open();
      } catch (error) {
        this.logger.debug('broker reconnect failed', { error: String(error), retry_in_ms: this.reconnectDelayMs });
        this.scheduleReconnect();
      }
    }, delay);
  }
}

/**
 * The acknowledgements of one consumer channel. Messages settled together (a batch)
 * are acknowledged in one frame when they are the oldest unacknowledged deliveries
 * (`multiple`: everything up to the last one), one by one otherwise, so a message
 * still in a handler never holds up the others' acknowledgements.
 */
export class Acks {
  /** Delivered and neither acked nor nacked yet, in delivery order (delivery tags increase). */
  private outstanding: ConsumeMessage[] = [];
  private readonly done = new Set<number>();
  private scheduled = false;

  constructor(private readonly channel: Channel) {}

  received(message: ConsumeMessage): void {
    this.outstanding.push(message);
  }

  ack(message: ConsumeMessage): void {
    this.done.add(message.fields.deliveryTag);
    if (this.scheduled) return;
    this.scheduled = true;
    // After the other messages of the batch settled (their callbacks are queued already).
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Back to the queue, for this or another worker. */
  nack(message: ConsumeMessage): void {
    this.outstanding = this.outstanding.filter((m) => m !== message);
    this.channel.nack(message, false, true);
  }

  private flush(): void {
    let prefix = 0;
    while (prefix < this.outstanding.length && this.done.has(this.outstanding[prefix].fields.deliveryTag)) prefix++;
    const last = prefix > 0 ? this.outstanding[prefix - 1] : undefined;
    const later = this.outstanding.slice(prefix);
    const rest = this.done.size > prefix ? later.filter((m) => this.done.has(m.fields.deliveryTag)) : [];
    this.outstanding = rest.length > 0 ? later.filter((m) => !this.done.has(m.fields.deliveryTag)) : later;
    this.done.clear();
    try {
      if (last) this.channel.ack(last, true);
      for (const message of rest) this.channel.ack(message);
    } catch {
      /* the channel closed: the broker redelivers whatever was not acknowledged */
    }
  }
}
