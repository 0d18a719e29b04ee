import type { BusService } from '../../../core';

/** The topic of the messages that run executions, one segment each. */
export const SEGMENT_TOPIC = 'flows.execution.run';

/**
 * Runs segment `segment` of an execution. The execution row counts its segments, so a
 * message whose segment has already run (a stale or repeated continuation) is ignored.
 */
export interface SegmentMessage {
  execution_uuid: string;
  segment: number;
  /** The step that paused the execution: its record turns from `waiting` to `succeeded` when this segment runs. */
  resume?: string;
  /**
   * The segment starts at an external step, which its prepare runs with no transaction
   * open (external-step.ts). Without it the prepare reads nothing: most segments start
   * with an internal step, and a message from before this flag existed ends at once and
   * publishes its continuation with it.
   */
  external?: true;
}

/** Publishes in the current transaction: the segment runs only if what led to it commits. */
export function publishSegment(bus: BusService, message: SegmentMessage, at?: Date): Promise<string> {
  return bus.publish(SEGMENT_TOPIC, message, at ? { at } : undefined);
}
