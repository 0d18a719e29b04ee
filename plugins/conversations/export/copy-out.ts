import type { PoolClient } from 'pg';

/** What to do with a `COPY ... TO STDOUT`'s rows, as they arrive. */
export interface CopyOutReader<T> {
  /**
   * One row (PostgreSQL sends one per CopyData message), with its newline. The bytes
   * are a view of the driver's buffer, which it reuses: use them before returning.
   */
  row(bytes: Buffer): void;
  /** The COPY has ended: the result. */
  end(): T;
  /** The COPY failed (or `row` or `end` threw): let go of what was gathered. */
  abandon?(): void;
}

/**
 * `COPY (...) TO STDOUT` on a `pg` client, each row handed to `reader.row` as it
 * arrives, so that the caller's work overlaps with PostgreSQL's. Measured on the message
 * export (bench/export.ts, two cores): 69,000 rows/s when the page was transcoded
 * after the whole COPY had arrived, 87,000 row by row.
 *
 * A query object `pg` drives itself (it calls `submit`, then a `handle...` method per
 * message from the server), rather than pg-copy-streams: that library's stream
 * concatenates the socket's data into new buffers, and buffers outside the JavaScript
 * heap, made per page, kept V8's full collections frequent.
 */
export function copyOut<T>(client: PoolClient, statement: string, reader: CopyOutReader<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    // `pg` takes any object with `submit` as a query and reports to its handle... methods.
    client.query(new CopyOutQuery(statement, reader, resolve, reject) as never);
  });
}

class CopyOutQuery<T> {
  private failure: Error | null = null;
  private settled = false;

  constructor(
    private readonly text: string,
    private readonly reader: CopyOutReader<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure || this.settled) return;
    try {
      this.reader.row(message.chunk);
    } catch (error) {
      // Reported when the server is done sending, so the connection stays in step.
      this.failure = error as Error;
    }
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    if (this.failure) return this.fail(this.failure);
    if (this.settled) return;
    let result: T;
    try {
      result = this.reader.end();
    } catch (error) {
      return this.fail(error as Error);
    }
    this.settled = true;
    this.resolve(result);
  }

  handleError(error: Error): void {
    // After a refused COPY FROM, the server's error is the echo of our own refusal.
    this.fail(this.failure ?? error);
  }

  // Not a COPY TO: remembered, reported once the server is ready for the next statement.
  handleRowDescription(): void {
    this.failure ??= new Error('copyOut: the statement is not a COPY ... TO STDOUT');
  }
  handleDataRow(): void {}
  handleEmptyQuery(): void {
    this.handleRowDescription();
  }
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    this.failure ??= new Error('copyOut: the statement is a COPY FROM');
    connection.sendCopyFail('copyOut reads only');
  }

  /** Once only: pg's read timeout reports an error and may still report the end later. */
  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reader.abandon?.();
    this.reject(error);
  }
}
