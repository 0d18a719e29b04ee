import type { Envelope, RegisteredConsumer } from './bus-types';
import type { Delivery, DeliveryOutcome } from './delivery';

/** No batch holds more (each handler's savepoint may take a subtransaction id; PostgreSQL caches 64 per transaction). */
export const MAX_BATCH = 32;

/**
 * How long the handlers of one batch may take in all, by the consumer's recent
 * handler times: a batch's handlers run one after another, so batching pays only
 * while they are quick next to the cost of a transaction. Slow handlers get batches
 * of one and run `concurrency` at once, as before batching.
 */
const BATCH_BUDGET_MS = 5;

/** Batches of quick handlers running at once: one fills while the other runs. */
const QUICK_BATCHES = 2;

/**
 * Unacknowledged messages a broker hands one consumer at a time. While its handlers
 * are slow: twice its concurrency, so the next messages are at hand and the rest wait
 * in the queue for whichever worker is free first. While they are quick, and for a
 * batch consumer (consumeBatch) always: two full batches, so that the batches can
 * fill (with twice the concurrency, a consumer of concurrency 1 would get batches of
 * one message, each its own transaction).
 */
export const prefetchFor = (consumer: RegisteredConsumer, quick: boolean): number => (quick || consumer.batchHandler ? Math.max(MAX_BATCH * QUICK_BATCHES, consumer.concurrency * 2) : consumer.concurrency * 2);

/** How the handlers' pace is judged (see ConsumerBatches.quick): a batch of this many times the concurrency fits the budget, or does no longer. */
const QUICK_WHEN_FITTING = 2;
const SLOW_WHEN_FITTING = 1;

interface Pending {
  envelope: Envelope;
  resolve: (outcome: DeliveryOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The messages waiting for one consumer in this process, handled in batches: every
 * message that arrived meanwhile (up to a limit) goes into one inbox transaction.
 * While the consumer's handlers are quick, two batches run at once, so that under
 * load the messages arriving during one batch make the next; while they are slow,
 * batches of one run `concurrency` at once, as deliveries did before batching.
 * Each message's promise settles once its batch has committed (then it may be
 * acknowledged) or failed (then the whole batch must be delivered again: nothing of
 * it committed).
 */
export class ConsumerBatches {
  private readonly queue: Pending[] = [];
  private running = 0;
  private scheduled = false;
  /** Mean wall time of one handler (ms), smoothed; undefined until one ran. */
  private handlerMs?: number;
  /**
   * Whether the handlers are quick enough for batches larger than the consumer's
   * concurrency: once a batch of twice the concurrency fits the time budget, until one
   * of the concurrency no longer does (apart, so the pace does not flap at the edge).
   */
  private quick = false;

  constructor(
    private readonly consumer: RegisteredConsumer,
    private readonly delivery: Delivery,
    /** The transport's bound: with a broker, half the prefetch, so one batch can fill while another runs. */
    private maxBatch: number,
    /** Told when the pace changes (the broker transport then changes the consumer's prefetch, see prefetchFor). */
    private readonly onPaceChange: (quick: boolean) => void = () => {},
  ) {}

  /** The transport's new bound (its prefetch changed). */
  setMaxBatch(maxBatch: number): void {
    this.maxBatch = maxBatch;
  }

  submit(envelope: Envelope): Promise<DeliveryOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ envelope, resolve, reject });
      if (!this.scheduled) {
        // Deferred, so that messages arriving together (one socket read, one relay batch) share a batch.
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  /**
   * The size of the next batch: up to maxBatch while handlers are quick, 1 while they
   * are slow or not measured yet. A batch consumer's handler is made for many messages
   * at once (its time per message falls as its batch grows, so its pace would judge it
   * by the batches it got): always up to maxBatch.
   */
  batchLimit(): number {
    if (this.consumer.batchHandler) return Math.min(this.maxBatch, MAX_BATCH);
    if (this.handlerMs === undefined) return 1;
    const fit = Math.floor(BATCH_BUDGET_MS / Math.max(this.handlerMs, 0.001));
    return Math.max(1, Math.min(this.maxBatch, MAX_BATCH, fit));
  }

  private judgePace(handlerMs: number): void {
    if (this.consumer.batchHandler) return;
    const fitting = BATCH_BUDGET_MS / Math.max(handlerMs, 0.001) / this.consumer.concurrency;
    const quick = this.quick ? fitting >= SLOW_WHEN_FITTING : fitting >= QUICK_WHEN_FITTING;
    if (quick === this.quick) return;
    this.quick = quick;
    this.onPaceChange(quick);
  }

  private pump(): void {
    const limit = this.batchLimit();
    // Quick handlers: two batches at a time (one fills while the other runs), so batches grow under load.
    const batches = limit > 1 ? Math.min(this.consumer.concurrency, QUICK_BATCHES) : this.consumer.concurrency;
    while (this.running < batches && this.queue.length > 0) {
      const batch = this.queue.splice(0, limit);
      this.running++;
      void this.run(batch);
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    try {
      const result = await this.delivery.deliverBatch(this.consumer, batch.map((pending) => pending.envelope));
      if (result.handlersRun > 0) {
        const sample = result.handlerMs / result.handlersRun;
        this.handlerMs = this.handlerMs === undefined ? sample : this.handlerMs * 0.7 + sample * 0.3;
        this.judgePace(this.handlerMs);
      }
      batch.forEach((pending, i) => pending.resolve(result.outcomes[i]));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.running--;
      this.pump();
    }
  }
}
