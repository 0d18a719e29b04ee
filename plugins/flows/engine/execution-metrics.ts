import type { MetricsService } from '../../../core';
import type { ExecutionStatus } from '../entities';

/** What the engine counts: executions as they end. */
export interface ExecutionMetrics {
  finished(status: ExecutionStatus): void;
}

/**
 * `switchboard_flows_executions_finished_total{status}`: executions that ended,
 * `succeeded` or `failed`. Counted when the segment that ends one has written it; a
 * segment whose transaction then fails runs again and is counted again (rare: the
 * database went away between the write and the commit).
 */
export function executionMetrics(metrics: MetricsService): ExecutionMetrics {
  const counter = metrics.counter({ name: 'executions_finished_total', help: 'Flow executions that ended, by status (succeeded, failed)', labelNames: ['status'] });
  return { finished: (status) => counter.inc({ status }) };
}
