import type { BusService, FieldErrors } from '../../core';
import { AGENT_TOPICS, type AgentDeletedEvent, type AgentDirectory } from '../agents';
import { PbxExtensionConnector, SipTrunkConnection } from './entities';

/** Numbers a connector or trunk names, each with the member path a refusal is reported at. */
export interface NamedNumber {
  path: string;
  number: string;
}

/**
 * The agent a connector or trunk is bound to must be one of the tenant's (422 at
 * `agent_uuid`, so another tenant's agent is indistinguishable from none). When that
 * agent has phone numbers, the numbers named must be among them: calls for a number the
 * agent does not hold would reach an agent that does not expect them.
 */
export async function checkAgentBinding(agents: AgentDirectory, agentUuid: string | null, numbers: NamedNumber[], errors: FieldErrors): Promise<void> {
  if (agentUuid === null) return;
  const agent = await agents.get(agentUuid);
  if (!agent) {
    (errors.agent_uuid ??= []).push('is not an agent of this tenant');
    return;
  }
  const held = ((agent.phone_numbers ?? []) as Array<{ number: string }>).map((phone) => phone.number);
  if (held.length === 0) return;
  for (const { path, number } of numbers) {
    if (!held.includes(number)) (errors[path] ??= []).push(`${number} is not one of the agent’s phone numbers (${held.join(', ')})`);
  }
}

/** Agent names for a page of rows, in one query. */
export async function agentNames(agents: AgentDirectory, rows: Array<{ agentUuid: string | null }>): Promise<Map<string, string>> {
  return agents.names(rows.flatMap((row) => (row.agentUuid ? [row.agentUuid] : [])));
}

/**
 * A deleted agent's connectors and trunks stay (they hold a PBX's or a carrier's
 * configuration the tenant may bind to another agent) but lose the agent and stop.
 */
export function releaseDeletedAgents(bus: BusService): void {
  bus.consume<AgentDeletedEvent>({ name: 'release-deleted-agent', topics: [AGENT_TOPICS.deleted] }, async (message, { em }) => {
    if (!message.tenant) return;
    const where = { tenantUuid: message.tenant.uuid, agentUuid: message.payload.agent_uuid };
    const released = { agentUuid: null, status: 'inactive' as const, updatedAt: new Date() };
    await em.nativeUpdate(PbxExtensionConnector, where, released);
    await em.nativeUpdate(SipTrunkConnection, where, released);
  });
}
