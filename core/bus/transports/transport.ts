import type { Envelope } from '../bus-types';

/** Where the relay hands claimed outbox rows: RabbitMQ, or the consumers in this process. */
export interface Transport {
  readonly name: 'amqp' | 'in-process';
  /** Begins consuming for this process's consumers (worker and start roles). */
  startConsuming(): Promise<void>;
  /** How many more rows it can take now; 0 while it cannot take any (broker down, too much in flight). */
  capacity(): number;
  /**
   * Takes the rows; each is marked complete (`outbox.complete()`: deleted by the relay's
   * next claim) only once it is safely handed over (broker confirm, or every local
   * consumer done). Rows it could not take are released.
   */
  send(envelopes: Envelope[]): Promise<void>;
  /** Throws while the transport cannot deliver (for /readyz). */
  check(): Promise<void>;
  /** Stops consuming and waits for handlers in progress. */
  stop(): Promise<void>;
}
