import type { ChildProcess } from 'node:child_process';
import { benchDatabase, stopEmbeddedDatabase } from './bench-database';
import { stopChildren } from './children';

/** What a bench's main is given: its database, the list its forked children go in, and a place for what else it must close. */
export interface BenchFrame {
  database: { url: string };
  children: ChildProcess[];
  /** Closed after the children stopped, in order (a pool, an HTTP agent); a failure to close is ignored. */
  onClose(close: () => Promise<unknown>): void;
  /** Another database, for a second kernel; dropped with the first. */
  newDatabase(): Promise<{ url: string }>;
}

/**
 * Runs a bench's main: whatever happens, its children are stopped, what it opened closed and
 * its database dropped; the process exits with the code `body` answers (writeResults's),
 * or 1 when it throws.
 */
export function benchMain(body: (frame: BenchFrame) => Promise<number>): void {
  const run = async () => {
    const database = await benchDatabase();
    const children: ChildProcess[] = [];
    const closers: Array<() => Promise<unknown>> = [];
    let exitCode = 1;
    try {
      const newDatabase = async () => {
        const another = await benchDatabase();
        closers.push(() => another.drop());
        return another;
      };
      exitCode = await body({ database, children, onClose: (close) => closers.push(close), newDatabase });
    } finally {
      await stopChildren(children);
      for (const close of closers) await close().catch(() => {});
      await database.drop();
      await stopEmbeddedDatabase();
    }
    process.exit(exitCode);
  };
  run().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
