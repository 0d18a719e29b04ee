import type { PGlite } from '@electric-sql/pglite';

/** Wire-protocol bytes that PGlite runs in one go: a startup packet, or a client's messages up to a Sync or a simple Query. */
export interface Unit {
  bytes: Uint8Array;
  /**
   * Whether it ends where PostgreSQL answers ReadyForQuery (Sync, Query, the startup
   * packet). A unit ending with a Flush leaves an extended query open: its client keeps
   * the session until its Sync.
   */
  endsReady: boolean;
}

/** One client connection's side: where its answers go, and what it has left to run. */
export interface SessionClient {
  /** Sends PGlite's answer bytes to the client. */
  write(bytes: Uint8Array): void;
  /** PGlite failed while running the client's unit (not an SQL error, which is an answer): drop the client. */
  fail(error: unknown): void;
}

interface Job {
  client: SessionClient;
  unit: Unit;
}

/** Sync, then a simple Query `rollback`: ends whatever a client that went away left open. */
const ROLLBACK = new Uint8Array([
  ...[0x53, 0, 0, 0, 4],
  ...[0x51, 0, 0, 0, 13],
  ...new TextEncoder().encode('rollback'),
  0,
]);

/**
 * Shares PGlite's one PostgreSQL session among many client connections, as a pooler in
 * session mode would share a backend if it had only one: a client's unit runs whole
 * (nothing of another client's runs between its Parse and its Sync), and a client
 * inside a transaction, or inside an extended query, keeps the session until it is
 * out: the others wait.
 *
 * pglite-socket 0.2.17's PGLiteSocketServer does not do the first: it queues single
 * messages, so two connections' extended queries interleave and one binds the other's
 * unnamed statement ("bind message supplies 2 parameters, but prepared statement \"\"
 * requires 1"); see electric-sql/pglite issue #1046.
 */
export class PgliteSessionQueue {
  private readonly waiting: Job[] = [];
  /** The client that keeps the session between its units: in a transaction, or in an extended query before its Sync. */
  private holder: SessionClient | undefined;
  /** The client whose unit runs now. */
  private current: SessionClient | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly db: PGlite) {}

  /** Queues a client's unit; units of one client run in the order given. */
  run(client: SessionClient, unit: Unit): void {
    this.waiting.push({ client, unit });
    this.start();
  }

  /**
   * A client went away: its waiting units go, and what it left open is rolled back, as
   * PostgreSQL does when a connection ends. The rollback is the client's next unit, so
   * it runs at once when the client holds the session, also when that is known only
   * after the unit running now.
   */
  leave(client: SessionClient): void {
    for (let index = this.waiting.length - 1; index >= 0; index--) if (this.waiting[index].client === client) this.waiting.splice(index, 1);
    if (this.holder === client || this.current === client) this.run(client, { bytes: ROLLBACK, endsReady: true });
  }

  /** Resolves once nothing runs (before closing the database). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private start(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.nextIndex() >= 0) this.start();
    });
  }

  private async drain(): Promise<void> {
    for (let index = this.nextIndex(); index >= 0; index = this.nextIndex()) {
      const [job] = this.waiting.splice(index, 1);
      this.current = job.client;
      try {
        await this.db.execProtocolRawStream(job.unit.bytes, { onRawData: (bytes) => job.client.write(bytes) });
      } catch (error) {
        job.client.fail(error);
      }
      this.current = undefined;
      this.holder = this.db.isInTransaction() || !job.unit.endsReady ? job.client : undefined;
    }
  }

  /** The holder's next unit, or anyone's first when nobody holds the session; -1 when none may run now. */
  private nextIndex(): number {
    if (!this.holder) return this.waiting.length > 0 ? 0 : -1;
    return this.waiting.findIndex((job) => job.client === this.holder);
  }
}
