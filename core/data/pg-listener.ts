import { Client } from 'pg';

/**
 * A LISTEN connection that survives the database going away: it reconnects every
 * couple of seconds and calls `onReconnect` after each (re)connection, because
 * notifications sent while it was away are lost and the caller must catch up.
 */
export class PgListener {
  private client?: Client;
  private running = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly onReconnect: () => void = () => {},
  ) {}

  start(): void {
    this.running = true;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const client = new Client({ connectionString: this.databaseUrl });
    const again = () => {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (this.running && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.connect();
        }, 2000);
      }
    };
    client.on('error', again);
    client.on('end', again);
    client.on('notification', (message) => this.onNotify(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`listen ${this.channel}`);
      this.client = client;
      this.onReconnect();
    } catch {
      again();
    }
  }
}
