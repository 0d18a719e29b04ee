import type { FlowsRuntime } from '../flows-runtime';
import { registerExecutionRoutes } from './execution-routes';
import { scheduleRetention } from './retention';
import { executionMetrics } from './execution-metrics';
import { runSegment } from './run-segment';
import { SEGMENT_TOPIC, type SegmentMessage } from './segment-message';

export { runAction, type StepRunInput, type StepRunResult } from './run-action';

/** The execution engine: the consumer that runs executions segment by segment, the history routes, and retention. */
export function registerEngine(runtime: FlowsRuntime): void {
  const executions = executionMetrics(runtime.metrics);
  runtime.bus.consume<SegmentMessage>(
    { name: 'execute', topics: [SEGMENT_TOPIC], concurrency: runtime.config.get<number>('engineConcurrency') },
    (message, { em }) => runSegment(runtime, em, message, executions),
  );
  registerExecutionRoutes(runtime);
  scheduleRetention(runtime);
}
