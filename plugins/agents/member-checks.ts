import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint } from '../../core';

/**
 * A check another plugin makes of one member of an agent when a write sets it (the
 * appointments plugin: every `appointments.schedule_assignments[].schedule_uuid` names a
 * schedule of the tenant). It sees the member as it will be stored (merged with the
 * stored value and the defaults), reads in the request's transaction, and adds problems
 * at paths below the member (`appointments.schedule_assignments.0.schedule_uuid`): any
 * problem answers 422 and nothing is written.
 */
export interface AgentMemberCheck {
  /** The agent's member it checks: `appointments`. */
  member: 'appointments';
  check(em: EntityManager, value: Record<string, unknown>, problems: { add(path: string, message: string): void }): void | Promise<void>;
}

export const agentMemberChecks = createExtensionPoint<AgentMemberCheck>({ id: 'agents.memberChecks' });
