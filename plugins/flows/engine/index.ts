import type { FlowsRuntime } from '../flows-runtime';
import { createFlowTriggers } from '../runs/create-flow-triggers';
import { consumeTriggerEvents } from './event-triggers';
import { consumePolls } from './poll-triggers';
import { scheduleRetention } from './retention';
import { executionMetrics } from './execution-metrics';
import { prepareExternalStep } from './external-step';
import { runSegment, type PreparedStep } from './run-segment';
import { SEGMENT_TOPIC, type SegmentMessage } from './segment-message';

export { runAction, type StepRunInput, type StepRunResult } from './run-action';
export { executionRoutes } from './execution-routes';

/**
 * The execution engine: the consumer that runs executions segment by segment, the
 * consumers that start them from apps' event and poll triggers, and retention (its history routes are `executionRoutes`).
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
      // Most segments start with an internal step: theirs cost nothing before the transaction.
      prepareIf: (message) => message.payload.external === true && !message.payload.resume,
    },
    (message, { em, prepared }) => runSegment(runtime, em, message, executions, prepared),
  );
  const triggers = createFlowTriggers(runtime);
  consumeTriggerEvents(runtime, triggers);
  consumePolls(runtime, triggers);
  scheduleRetention(runtime);
}
