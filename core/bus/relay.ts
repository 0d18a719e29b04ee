import type { PgListener } from '../data/pg-listener';
import type { Logger } from '../logging/logger';
import { OUTBOX_CHANNEL, type OutboxStore } from './outbox-store';
import type { Transport } from './transports/transport';
import { WakeSignal } from './wake-signal';

export interface RelaySettings {
  batchSize: number;
  /** The safety net: how often it looks even without a NOTIFY. */
  pollIntervalMs: number;
}

/**
 * Moves due outbox rows to the transport. It claims by lease with `FOR UPDATE SKIP
 * LOCKED` (several relays never take the same row; no "last seen id" cursor, since
 * sequence order is not commit order), is woken by its own process after a publishing
 * transaction commits (`signal`, see OutboxCommits) and by a NOTIFY from processes
 * that publish without a relay, sleeps exactly until the next delayed row is due, and
 * polls slowly in case a wake-up was missed.
 */
export class Relay {
  readonly signal = new WakeSignal();
  private running = false;
  private loop?: Promise<void>;
  private unlisten?: () => Promise<void>;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly transport: Transport,
    /** The process's LISTEN connection, shared with its other listeners. */
    private readonly notifications: PgListener,
    private readonly settings: RelaySettings,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.running = true;
    // Catch up after every (re)connection: notifications sent meanwhile are lost.
    this.unlisten = await this.notifications.subscribe(OUTBOX_CHANNEL, () => this.signal.notify(), () => this.signal.notify());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.signal.notify();
    await this.loop;
    await this.unlisten?.();
    await this.outbox.flushCompleted().catch((error) => this.logger.warn('deleting delivered outbox rows failed; their leases will run out', { error: String(error) }));
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const room = Math.min(this.transport.capacity(), this.settings.batchSize);
        if (room <= 0) {
          await this.signal.wait(this.settings.pollIntervalMs);
          continue;
        }
        const { envelopes, msUntilNextDue } = await this.outbox.claim(room);
        if (envelopes.length > 0) {
          await this.transport.send(envelopes);
          continue;
        }
        await this.signal.wait(Math.min(msUntilNextDue ?? this.settings.pollIntervalMs, this.settings.pollIntervalMs));
      } catch (error) {
        this.logger.warn('relay cycle failed; retrying', { error: String(error) });
        await this.signal.wait(1000);
      }
    }
  }
}
