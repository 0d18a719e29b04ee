import type { FlowsRuntime } from '../flows-runtime';
import { createFlowTriggers } from '../runs/create-flow-triggers';
import { consumeTriggerEvents } from './event-triggers';
import { consumePolls } from './poll-triggers';
import { registerExecutionRoutes } from './execution-routes';
import { scheduleRetention } from './retention';
import { executionMetrics } from './execution-metrics';
import { prepareExternalStep } from './external-step';
import { runSegment, type PreparedStep } from './run-segment';
import { SEGMENT_TOPIC, type SegmentMessage } from './segment-message';

export { runAction, type StepRunInput, type StepRunResult } from './run-action';

/**
 * The execution engine: the consumer that runs executions segment by segment, the
 * consumers that start them from apps' event and poll triggers, the history routes, and retention.
 */
export function registerEngine(runtime: FlowsRuntime): void {
  const executions = executionMetrics(runtime.metrics);
  runtime.bus.consume<SegmentMessage, PreparedStep | null>(
    {
      name: 'execute',
      topics: [SEGMENT_TOPIC],
      concurrency: runtime.config.get('engineConcurrency'),
      // An external step (a vendor's API) runs here, holding no transaction while it waits.
      prepare: (message, { em }) => prepareExternalStep(runtime, em, message),
    },
    (message, { em, prepared }) => runSegment(runtime, em, message, executions, prepared),
  );
  const triggers = createFlowTriggers(runtime);
  consumeTriggerEvents(runtime, triggers);
  consumePolls(runtime, triggers);
  registerExecutionRoutes(runtime);
  scheduleRetention(runtime);
}
