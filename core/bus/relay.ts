import { Client } from 'pg';
import type { Logger } from '../logging/logger';
import type { OutboxStore } from './outbox-store';
import type { Transport } from './transports/transport';
import { WakeSignal } from './wake-signal';

export interface RelaySettings {
  databaseUrl: string;
  batchSize: number;
  /** The safety net: how often it looks even without a NOTIFY. */
  pollIntervalMs: number;
}

/**
 * Moves due outbox rows to the transport. It claims by lease with `FOR UPDATE SKIP
 * LOCKED` (several relays never take the same row; no "last seen id" cursor, since
 * sequence order is not commit order), wakes on LISTEN/NOTIFY from the outbox's
 * insert trigger, sleeps exactly until the next delayed row is due, and polls slowly
 * in case a notification was missed.
 */
export class Relay {
  readonly signal = new WakeSignal();
  private running = false;
  private loop?: Promise<void>;
  private listener?: Client;
  private listenRetry?: NodeJS.Timeout;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly transport: Transport,
    private readonly settings: RelaySettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.running = true;
    void this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.listenRetry);
    this.signal.notify();
    await this.loop;
    await this.listener?.end().catch(() => {});
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const room = Math.min(this.transport.capacity(), this.settings.batchSize);
        if (room <= 0) {
          await this.signal.wait(this.settings.pollIntervalMs);
          continue;
        }
        const envelopes = await this.outbox.claim(room);
        if (envelopes.length > 0) {
          await this.transport.send(envelopes);
          continue;
        }
        const untilDue = await this.outbox.msUntilNextDue();
        await this.signal.wait(Math.min(untilDue ?? this.settings.pollIntervalMs, this.settings.pollIntervalMs));
      } catch (error) {
        this.logger.warn('relay cycle failed; retrying', { error: String(error) });
        await this.signal.wait(1000);
      }
    }
  }

  private async listen(): Promise<void> {
    if (!this.running) return;
    const client = new Client({ connectionString: this.settings.databaseUrl });
    const retry = () => {
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => {});
      if (this.running && !this.listenRetry) {
        this.listenRetry = setTimeout(() => {
          this.listenRetry = undefined;
          void this.listen();
        }, 2000);
      }
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', () => this.signal.notify());
    try {
      await client.connect();
      await client.query('listen switchboard_outbox');
      this.listener = client;
      this.signal.notify(); // catch up on anything published while not listening
    } catch {
      retry();
    }
  }
}
