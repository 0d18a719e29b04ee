import type { FlowsRuntime } from '../flows-runtime';
import { createFlowTriggers } from '../runs/create-flow-triggers';
import { consumeTriggerEvents } from './event-triggers';
import { consumePolls } from './poll-triggers';
import { registerExecutionRoutes } from './execution-routes';
import { scheduleRetention } from './retention';
import { executionMetrics } from './execution-metrics';
import { runSegment } from './run-segment';
import { SEGMENT_TOPIC, type SegmentMessage } from './segment-message';

export { runAction, type StepRunInput, type StepRunResult } from './run-action';

/**
 * The execution engine: the consumer that runs executions segment by segment, the
 * consumers that start them from apps' event and poll triggers, the history routes, and retention.
 */
export function registerEngine(runtime: FlowsRuntime): void {
  const executions = executionMetrics(runtime.metrics);
  runtime.bus.consume<SegmentMessage>(
    { name: 'execute', topics: [SEGMENT_TOPIC], concurrency: runtime.config.get('engineConcurrency') },
    (message, { em }) => runSegment(runtime, em, message, executions),
  );
  const triggers = createFlowTriggers(runtime);
  consumeTriggerEvents(runtime, triggers);
  consumePolls(runtime, triggers);
  registerExecutionRoutes(runtime);
  scheduleRetention(runtime);
}
