import { scheduleHousekeeping, type LifecycleService, type Logger } from '../../../core';
import type { FileStorage } from '../../storage';

/** Where calls keep their recordings (`recordings/{tenant}/{call}.wav`, consumers.ts). */
export const RECORDINGS_PREFIX = 'recordings/';

/**
 * A recording is fetched whole and stored in one `put`, which takes seconds: a write under
 * `recordings/` untouched for this long belongs to a process that died in the middle of it.
 */
export const UNFINISHED_AFTER_MS = 60 * 60_000;
export const SWEEP_INTERVAL_MS = 15 * 60_000;

/**
 * Removes the writes under `recordings/` that never completed (the filesystem driver's
 * temporary files, S3's incomplete multipart uploads) and are older than `UNFINISHED_AFTER_MS`.
 * Finished recordings are the tenants' and stay. Throws when the store cannot list them
 * (the housekeeping logs it and tries again at its next run).
 */
export async function sweepUnfinishedRecordings(storage: FileStorage, now = new Date()): Promise<number> {
  return storage.removeUnfinished(RECORDINGS_PREFIX, { olderThan: new Date(now.getTime() - UNFINISHED_AFTER_MS) });
}

/** In the processes that do background work: at their start, then every SWEEP_INTERVAL_MS. */
export function scheduleRecordingsSweep({ lifecycle, storage, logger }: { lifecycle: LifecycleService; storage: FileStorage; logger: Logger }): void {
  scheduleHousekeeping(lifecycle, logger, {
    what: 'sweeping unfinished recordings',
    everyMs: SWEEP_INTERVAL_MS,
    run: async () => {
      const removed = await sweepUnfinishedRecordings(storage);
      if (removed > 0) logger.info('removed recordings whose writes never completed', { removed });
    },
  });
}
