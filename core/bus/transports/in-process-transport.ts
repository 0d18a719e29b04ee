import type { Logger } from '../../logging/logger';
import type { Envelope, RegisteredConsumer } from '../bus-types';
import { ConsumerBatches, MAX_BATCH } from '../consumer-batches';
import type { Delivery } from '../delivery';
import type { OutboxStore } from '../outbox-store';
import { topicMatches } from '../topic-pattern';
import type { Transport } from './transport';

/**
 * The single-machine default (no AMQP_URL): the relay hands rows straight to this
 * process's consumers, with the same inbox, retry and dead-letter semantics as with
 * a broker. A row stays in the outbox (leased) until every consumer is done with it,
 * so a crash mid-handler means redelivery, never loss. Rows handed over together are
 * handled in batches per consumer, as messages from the broker are.
 */
export class InProcessTransport implements Transport {
  readonly name = 'in-process' as const;
  private inFlight = 0;
  private consuming = false;
  private readonly batches = new Map<string, ConsumerBatches>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly consumers: readonly RegisteredConsumer[],
    delivery: Delivery,
    private readonly outbox: OutboxStore,
    private readonly logger: Logger,
    private readonly maxInFlight: number,
    /** Called when room frees up, so the relay claims more. */
    private readonly onCapacity: () => void,
  ) {
    for (const consumer of consumers) this.batches.set(consumer.name, new ConsumerBatches(consumer, delivery, MAX_BATCH));
  }

  async startConsuming(): Promise<void> {
    this.consuming = true;
  }

  capacity(): number {
    return this.consuming ? this.maxInFlight - this.inFlight : 0;
  }

  async send(envelopes: Envelope[]): Promise<void> {
    for (const envelope of envelopes) {
      this.inFlight++;
      const run = this.dispatch(envelope).finally(() => {
        this.inFlight--;
        this.running.delete(run);
        this.onCapacity();
      });
      this.running.add(run);
    }
  }

  private async dispatch(envelope: Envelope): Promise<void> {
    const targets = envelope.consumer
      ? this.consumers.filter((c) => c.name === envelope.consumer)
      : this.consumers.filter((c) => c.topics.some((pattern) => topicMatches(pattern, envelope.topic)));
    if (envelope.consumer && targets.length === 0) {
      this.logger.warn('dropping a retry for a consumer this installation no longer has', { consumer: envelope.consumer, message_id: envelope.messageId });
    }
    try {
      await Promise.all(targets.map((consumer) => this.batches.get(consumer.name)!.submit(envelope)));
      this.outbox.complete([envelope.rowId]);
    } catch (error) {
      // The database failed under us: the lease runs out and the row is delivered again;
      // consumers that already committed find their inbox record and skip it.
      this.logger.warn('in-process delivery failed; the message will be redelivered', { message_id: envelope.messageId, error: String(error) });
    }
  }

  async check(): Promise<void> {}

  async stop(): Promise<void> {
    this.consuming = false;
    await Promise.allSettled([...this.running]);
  }
}
