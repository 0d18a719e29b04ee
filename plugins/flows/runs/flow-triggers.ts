import { createServiceRef } from '../../../core';

/** A deployed trigger step: what trigger sources (hooks, schedules, bus events) start executions from. */
export interface LiveTrigger {
  flowUuid: string;
  versionUuid: string;
  stepUuid: string;
  /** The version of the trigger the flow was deployed with: its code (`matches`, a poll's `run`) is what runs. */
  version: number;
  /** The trigger step's config as deployed. */
  config: Record<string, unknown>;
  agentUuid: string | null;
  appConnectionUuid: string | null;
}

/**
 * The flows plugin's API for apps whose triggers fire on outside events. Every method
 * works in the current tenant and transaction (a request's, or a bus message's).
 */
export interface FlowTriggers {
  /** Live flows whose trigger is `appUid`'s `triggerKey` (an `agent_updated` consumer asks this). */
  live(appUid: string, triggerKey: string): Promise<LiveTrigger[]>;
  /** The live flow a hook token addresses; null when its flow is not live (never deployed, undeployed, deleted). */
  byHookToken(token: string): Promise<LiveTrigger | null>;
  /** The version if it is still the live one (a schedule tick checks this before it fires). */
  liveVersion(versionUuid: string): Promise<LiveTrigger | null>;
  /** Starts an execution with `event` as the trigger's output: its row and its bus message, in the current transaction. */
  fire(trigger: LiveTrigger, event: unknown): Promise<{ executionUuid: string }>;
  /**
   * byHookToken and fire in one: the live flow's execution is found and written by one statement (a hook
   * request's hot path). Null when no live flow listens on the token.
   */
  fireHook(token: string, event: unknown): Promise<{ executionUuid: string } | null>;
}

export const flowTriggersRef = createServiceRef<FlowTriggers>('flows.triggers');

/**
 * Who a write made by a flow's step is attributed to: pass it on as the write's cause
 * (`TableRecords.insert(..., { cause })`, the agent writer's `cause`), which the service
 * sends as the `caused-by` header of its event. The flows plugin does not start a flow
 * with an event that flow caused, so "when a record is added, add one" does not loop.
 */
export const flowCause = (flowUuid: string): string => `flow:${flowUuid}`;
