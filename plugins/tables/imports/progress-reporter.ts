import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../../core';

export interface Progress {
  done: number;
  total: number | null;
}

/** At most one progress write per this many milliseconds. */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Writes an import's status and progress outside the job's transaction (through the
 * pool, autocommit), so `GET /data/imports/{uuid}` shows them while the rows are still
 * uncommitted. Writes are throttled and one at a time; the last value is written by a
 * trailing timer. The job's own transaction must not touch the import row until
 * `stop()` has returned, or the two would wait for each other.
 */
export class ProgressReporter {
  /** Reported and not written yet. */
  private latest?: Progress;
  /** The last value reported, written or not. */
  private last?: Progress;
  private lastWrite = 0;
  private writing: Promise<void> = Promise.resolve();
  private busy = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly em: EntityManager,
    private readonly tenantUuid: string,
    private readonly importUuid: string,
    private readonly logger: Logger,
  ) {}

  /** Marks the import running from the start (a redelivery starts over). False when it is no longer queued or running. */
  async start(): Promise<boolean> {
    const rows: unknown[] = await this.em.getConnection().execute(
      `update data_table_imports set status = 'running', started_at = now(), updated_at = now(), progress_done = 0 ` +
        `where tenant_uuid = ? and uuid = ? and status in ('queued', 'running') returning uuid`,
      [this.tenantUuid, this.importUuid],
      'all',
    );
    return rows.length > 0;
  }

  report(done: number, total: number | null): void {
    if (this.stopped) return;
    this.latest = this.last = { done, total };
    if (this.busy || this.timer) return;
    const wait = this.lastWrite + PROGRESS_INTERVAL_MS - Date.now();
    if (wait <= 0) this.write();
    else this.timer = setTimeout(() => this.write(), wait).unref();
  }

  /**
   * No more writes; resolves once the last one has finished, with the last progress
   * reported (which the job writes with its outcome: a throttled one may be unwritten).
   */
  async stop(): Promise<Progress | undefined> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    return this.last;
  }

  private write(): void {
    this.timer = undefined;
    if (this.stopped || !this.latest) return;
    const { done, total } = this.latest;
    this.latest = undefined;
    this.busy = true;
    this.lastWrite = Date.now();
    this.writing = this.em
      .getConnection()
      .execute(
        `update data_table_imports set progress_done = ?, progress_total = coalesce(?, progress_total), updated_at = now() ` +
          `where tenant_uuid = ? and uuid = ? and status = 'running'`,
        [done, total, this.tenantUuid, this.importUuid],
        'run',
      )
      .then(
        () => undefined,
        // Progress is only shown: a lost write is not worth failing the import for.
        (error: Error) => {
          this.logger.warn('could not write import progress', { import_uuid: this.importUuid, error: error.message });
        },
      )
      .finally(() => {
        this.busy = false;
        if (this.latest) this.report(this.latest.done, this.latest.total);
      });
  }
}
