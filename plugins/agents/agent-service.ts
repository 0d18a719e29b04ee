import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, createServiceRef, type BusService, type SecretsService } from '../../core';
import { AGENT_TOPICS, type AgentChangedEvent } from './agent-events';
import type { AgentJson, AgentReader } from './agent-reader';
import { applyAgentWrite, type AgentWrite } from './agent-write';
import { Agent } from './entities';
import type { AgentMemberCheck } from './member-checks';

/**
 * What every agent-mutating route shares: find the agent to change (locked, so two
 * writes to one agent's lists never interleave), and answer with the whole agent
 * after announcing the change on the bus in the same transaction.
 */
/** The plugin's one AgentService, shared by its routes and the writer other plugins use (not exported from index.ts). */
export const agentServiceRef = createServiceRef<AgentService>('agents.service');

export class AgentService {
  constructor(
    readonly reader: AgentReader,
    readonly bus: BusService,
    readonly secrets: SecretsService,
    /** Event names agent webhooks may subscribe to (filled by every plugin at init). */
    readonly webhookEvents: ReadonlySet<string>,
    /** Other plugins' checks of members a write sets (the `agentMemberChecks` point). */
    readonly memberChecks: readonly AgentMemberCheck[] = [],
  ) {}

  /** The agent of the current tenant, row-locked until the request's transaction ends; 404 otherwise. */
  async lockForWrite(em: EntityManager, agentUuid: string): Promise<Agent> {
    const agent = await em.findOne(Agent, { uuid: agentUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!agent) throw new NotFoundError('Agent not found');
    return agent;
  }

  /** `PUT /agents/{uuid}` and the routes that replace one list: lock, check and apply the body, answer. */
  async update(em: EntityManager, tenantUuid: string, agentUuid: string, body: AgentWrite): Promise<{ data: AgentJson }> {
    const agent = await this.lockForWrite(em, agentUuid);
    const changed = await applyAgentWrite(em, tenantUuid, agent, body, false, this.memberChecks);
    return this.saved(em, agent, changed);
  }

  /** Flushes, reads the agent back as the API returns it, and publishes the change. */
  async saved(em: EntityManager, agent: Agent, changed: string[], topic: string = AGENT_TOPICS.updated): Promise<{ data: AgentJson }> {
    agent.updatedAt = new Date();
    await em.flush();
    const json = (await this.reader.one(em, agent.tenantUuid, agent.uuid))!;
    const event: AgentChangedEvent = { agent_uuid: agent.uuid, changed, agent: json };
    await this.bus.publish(topic, event, { headers: { 'agent-uuid': agent.uuid } });
    return { data: json };
  }
}
