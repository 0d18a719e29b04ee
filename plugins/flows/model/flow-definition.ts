/**
 * A deployed flow as its version stores it (`flow_versions.definition`): every step
 * with its stored config (references by step uuid) and its links, so the engine walks
 * the flow without rebuilding the tree.
 */
export interface DefinitionStep {
  uuid: string;
  /** The step's position when the version was deployed, as executions report it. */
  position: number;
  kind: 'trigger' | 'action';
  app_uid: string;
  trigger_key: string | null;
  action_key: string | null;
  /** The version of its trigger or action it runs; absent in versions deployed before steps kept one, which ran version 1. */
  definition_version?: number;
  agent_uuid: string | null;
  app_connection_uuid: string | null;
  config: Record<string, unknown>;
  continue_on_error: boolean;
  /** The step that runs after this one (for a branching step: after its branch); null at the end. */
  next: string | null;
  /** A branching step's first step of each branch; null for an empty branch. */
  branches?: Record<string, string | null>;
}

export interface FlowDefinition {
  /** The trigger step's uuid; execution starts at its `next`. */
  trigger: string;
  steps: Record<string, DefinitionStep>;
}
