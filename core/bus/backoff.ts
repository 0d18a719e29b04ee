import type { RetryPolicy } from './bus-types';

/** Delay before attempt `attempt + 1`, after `attempt` failed deliveries. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const { initialMs, factor, maxMs } = policy.backoff;
  return Math.min(maxMs, Math.round(initialMs * factor ** (attempt - 1)));
}
