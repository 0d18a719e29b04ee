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
}

/** Publishes in the current transaction: the segment runs only if what led to it commits. */
export function publishSegment(bus: BusService, message: SegmentMessage, at?: Date): Promise<string> {
  return bus.publish(SEGMENT_TOPIC, message, at ? { at } : undefined);
}
