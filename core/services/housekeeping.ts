import type { Logger } from '../logging/logger';
import type { LifecycleService } from './core-services';

/** A piece of background upkeep a plugin runs on a timer: pruning, expiring, sweeping. */
export interface HousekeepingJob {
  /** What it does, for the log line of a failed run ("pruning flow executions"). */
  what: string;
  /** The wait from the end of one run to the start of the next. */
  everyMs: number;
  /** One run; `signal` is aborted at shutdown, so a long backlog stops after the batch in progress. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Runs `job` in the processes that do background work (`worker`, `start`): once right
 * after the start (not awaited: upkeep must not hold up the start, and a process that
 * restarts often still gets it done), then `everyMs` after each run ends, so runs never
 * overlap in a process. Several processes may run it at once: a job is written so that
 * twice at once is harmless (a delete of what is gone deletes nothing). A failed run is
 * logged and the next one tries again; shutdown waits for the run in progress.
 */
export function scheduleHousekeeping(lifecycle: LifecycleService, logger: Logger, job: HousekeepingJob): void {
  if (lifecycle.role !== 'worker' && lifecycle.role !== 'start') return;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running = job
      .run(stop.signal)
      .catch((error) => {
        logger.warn(`${job.what} failed; the next run tries again`, { error: String(error) });
      })
      .finally(() => {
        running = undefined;
        if (!stop.signal.aborted) timer = setTimeout(tick, job.everyMs).unref();
      });
  };
  lifecycle.onStart(() => {
    timer = setTimeout(tick, 0).unref();
  });
  lifecycle.onStop(async () => {
    stop.abort();
    clearTimeout(timer);
    await running;
  });
}
