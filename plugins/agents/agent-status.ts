/**
 * An agent is `pending` when created, `active` once activated, and moves between
 * `active` and `paused` (decisions.md). A pending agent has never run, so it cannot
 * be paused.
 */
export type AgentStatus = 'pending' | 'active' | 'paused';

export const AGENT_STATUSES: readonly AgentStatus[] = ['pending', 'active', 'paused'];

export type AgentTransition = 'activate' | 'pause';

/** The status after `transition`, or null when it is not allowed from `from`. */
export function nextStatus(from: AgentStatus, transition: AgentTransition): AgentStatus | null {
  if (transition === 'activate') return 'active';
  return from === 'pending' ? null : 'paused';
}
