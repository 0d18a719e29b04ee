import type { RetryStrategy } from '../entities/task.entity';

/** No retry waits longer than this (an `exponential` strategy doubles quickly). */
export const MAX_RETRY_DELAY_MINUTES = 30 * 24 * 60;

export interface RetryPolicy {
  strategy: RetryStrategy;
  intervalMinutes: number;
  /** `custom`: minutes before each retry, in order. */
  schedule: readonly number[] | null;
}

/**
 * Minutes to wait before retry number `retry` (1 for the retry after the first failed
 * attempt):
 * - `fixed`: the interval every time;
 * - `exponential`: interval * 2^(retry-1) (1x, 2x, 4x, ...);
 * - `custom`: the schedule's entry for that retry; when the schedule is shorter than the
 *   retries allowed, its last entry again (an empty one: the interval).
 * Capped at MAX_RETRY_DELAY_MINUTES. Minutes may be 0: retry at once.
 */
export function retryDelayMinutes(policy: RetryPolicy, retry: number): number {
  const n = Math.max(1, Math.floor(retry));
  let minutes: number;
  switch (policy.strategy) {
    case 'exponential':
      minutes = policy.intervalMinutes * 2 ** (n - 1);
      break;
    case 'custom': {
      const schedule = policy.schedule ?? [];
      minutes = schedule.length > 0 ? schedule[Math.min(n, schedule.length) - 1] : policy.intervalMinutes;
      break;
    }
    default:
      minutes = policy.intervalMinutes;
  }
  return Math.min(Math.max(0, minutes), MAX_RETRY_DELAY_MINUTES);
}
