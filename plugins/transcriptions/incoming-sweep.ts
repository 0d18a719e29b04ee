import { scheduleHousekeeping, type LifecycleService, type Logger } from '../../core';
import type { FileStorage } from '../storage';
import { INCOMING_PREFIX } from './intake';

/** Everything the plugin stores lives under this prefix: the parked uploads and the tenants' files. */
const PLUGIN_PREFIX = 'transcriptions/';

/** How often a background process sweeps; a file left over waits at most this beyond its age. */
export const SWEEP_INTERVAL_MS = 15 * 60_000;

const MINUTE_MS = 60_000;

export interface SweepCount {
  /** Files stored whole but never moved under their tenant. */
  removed: number;
  /** Writes that never completed (the fs driver's temporary files, S3's incomplete multipart uploads); null when the store could not tell them (`unfinishedError`). */
  unfinished: number | null;
  unfinishedError?: string;
}

/**
 * Removes what uploads left under `transcriptions/incoming/` more than `maxAgeMinutes`
 * ago: an upload waits there only while its request runs (the server ends a request
 * after its 5-minute request timeout), so anything older belongs to a process that died
 * first, and no row points at it. Writes that never completed are removed under all of
 * `transcriptions/`: a process that died while a URL's audio streamed to its tenant's
 * key leaves one there too (a finished file outside `incoming/` is a tenant's, and stays). The age is the time its bytes were last written: a
 * stream in progress keeps touching its file, and S3 shows no object before the upload
 * completes. Several processes may sweep at once: removing a file twice does nothing.
 * Stops between files once `signal` aborts. A store that cannot list unfinished writes
 * (an S3-compatible store without ListMultipartUploads, or a key not allowed it) still
 * has its files swept.
 */
export async function sweepIncoming(storage: FileStorage, maxAgeMinutes: number, options: { now?: Date; signal?: AbortSignal } = {}): Promise<SweepCount> {
  const olderThan = new Date((options.now ?? new Date()).getTime() - maxAgeMinutes * MINUTE_MS);
  let removed = 0;
  for await (const file of storage.list(INCOMING_PREFIX, { olderThan })) {
    if (options.signal?.aborted) return { removed, unfinished: 0 };
    await storage.remove(file.key);
    removed += 1;
  }
  if (options.signal?.aborted) return { removed, unfinished: 0 };
  try {
    return { removed, unfinished: await storage.removeUnfinished(PLUGIN_PREFIX, { olderThan }) };
  } catch (error) {
    return { removed, unfinished: null, unfinishedError: String(error) };
  }
}

export interface IncomingSweepDeps {
  lifecycle: LifecycleService;
  storage: FileStorage;
  logger: Logger;
  /** TRANSCRIPTION_INCOMING_MAX_AGE_MINUTES; 0 sweeps nothing. */
  maxAgeMinutes: number;
}

/** Sweeps in the processes that do background work, at their start and then every SWEEP_INTERVAL_MS. */
export function scheduleIncomingSweep({ lifecycle, storage, logger, maxAgeMinutes }: IncomingSweepDeps): void {
  if (maxAgeMinutes <= 0) return;
  scheduleHousekeeping(lifecycle, logger, {
    what: 'sweeping transcriptions/incoming/',
    everyMs: SWEEP_INTERVAL_MS,
    run: async (signal) => {
      const { removed, unfinished, unfinishedError } = await sweepIncoming(storage, maxAgeMinutes, { signal });
      if (removed + (unfinished ?? 0) > 0) logger.info('removed uploads left under transcriptions/incoming/', { removed, unfinished, maxAgeMinutes });
      if (unfinishedError) logger.warn('the store could not list unfinished uploads under transcriptions/incoming/; the next run tries again', { error: unfinishedError });
    },
  });
}
