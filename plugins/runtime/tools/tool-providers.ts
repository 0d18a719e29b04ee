import { contributeWithDeps, contributedDepsRef, createExtensionPoint, type DepsMap, type ToolDefinition } from '../../../core';
import type { AgentView } from '../../agents';

/** The turn a contributed tool is offered in or called from. */
export interface RuntimeToolTurn {
  agentUuid: string;
  conversationUuid: string;
  /** The conversation's contact; null when it has none. */
  contactUuid: string | null;
  channel: string;
  /** The turn's clock: what "now" is for the tool (the prompt shows the model the same time). */
  now: Date;
  signal?: AbortSignal;
}

/** One tool another plugin gives the model: its definition and what a call does. */
export interface RuntimeTool {
  definition: ToolDefinition;
  /**
   * Runs one call with the model's arguments (unchecked: validate them). What it returns
   * goes back to the model as the tool's result; a throw becomes an error result, never
   * a failed turn. Runs in the tenant's work with no transaction open (the turn holds
   * none while tools run): a tool that writes opens its own short transaction.
   */
  run(args: Record<string, unknown>, turn: RuntimeToolTurn): Promise<unknown>;
}

/**
 * A plugin's tools for the runtime (the appointments plugin: `find_slots`,
 * `book_appointment`, ...). `tools` is asked once per turn, outside any transaction, and
 * answers the tools this agent has now (none when its configuration does not enable
 * them). Names are the provider's to fix; the agents plugin reserves them
 * (`RESERVED_TOOL_NAMES`) so no intent takes one.
 */
export interface RuntimeToolProvider {
  id: string;
  /** `deps`: the services this provider named, as its plugin handed them over (`contributeRuntimeTools`); empty when it names none. */
  tools(agent: AgentView, turn: RuntimeToolTurn, deps: Readonly<Record<string, unknown>>): RuntimeTool[] | Promise<RuntimeTool[]>;
  /** The services `tools` uses, by name (a plugin's `deps`); contribute the provider with `contributeRuntimeTools` so they are resolved. */
  deps?: DepsMap;
}

export const runtimeToolProviders = createExtensionPoint<RuntimeToolProvider>({ id: 'runtime.toolProviders', keyOf: (provider) => provider.id });

/** Where plugins hand over the services their providers name (one per kernel). */
export const runtimeToolDepsRef = contributedDepsRef<RuntimeToolProvider>('runtime.toolProviderDeps');

/**
 * The `definePlugin` members of a plugin that adds a tool provider naming `deps`: the
 * kernel resolves them as the plugin's own and its init hands them over.
 *
 *   export default definePlugin({ ...contributeRuntimeTools(appointmentTools) });   // id and dependsOn: plugin.json
 */
export const contributeRuntimeTools = (provider: RuntimeToolProvider) => contributeWithDeps(runtimeToolProviders, provider, runtimeToolDepsRef);
