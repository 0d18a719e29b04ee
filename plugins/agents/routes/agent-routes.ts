import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
  ResourceId,
  SuccessEnvelope,
  Type,
  defineRoute,
  deleteRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type QuotaService,
  type TSchema,
} from '../../../core';
import { AGENT_TOPICS, type AgentDeletedEvent } from '../agent-events';
import type { AgentService } from '../agent-service';
import { AGENT_STATUSES, nextStatus, type AgentTransition } from '../agent-status';
import { applyAgentWrite } from '../agent-write';
import { Agent } from '../entities';
import { languages } from '../languages/language-catalog';
import { agentWriteSchema, type SettingsSlotSchemas } from '../schemas/agent';
import { WebhookEvent } from '../schemas/webhook';
import type { AgentWebhookEvent } from '../webhook-events';

export const AgentParams = Type.Object({ uuid: ResourceId('agents.agent', 'The agent') });
const tags = ['agents'];

export interface AgentRouteDeps {
  service: AgentService;
  /** The agent's response schema, with the settings slots other plugins add. */
  agent: TSchema;
  slots: SettingsSlotSchemas;
  events: readonly AgentWebhookEvent[];
  quotas: QuotaService;
}

/** Agents: create, list, read, update, delete, activate and pause; the language and webhook event catalogs. */
export const agentRoutes = (deps: AgentRouteDeps): AnyRoute[] => [
  createAgent(deps),
  listAgents(deps),
  readAgent(deps),
  updateAgent(deps),
  deleteAgent(deps),
  ...(['activate', 'pause'] as const).map((transition) => transitionAgent(deps, transition)),
  languageCatalog,
  webhookEventCatalog(deps.events),
];

const createAgent = ({ service, agent, slots, quotas }: AgentRouteDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/agents',
    summary: 'Create an agent',
    description: 'The body is the PUT body with `name` required. A new agent is `pending` until activated. 429 when the tenant has all the agents its `agents` quota allows.',
    tags,
    body: agentWriteSchema(slots, { create: true }),
    status: 201,
    response: DataEnvelope(agent),
    errors: [429],
    handler: async ({ body, em, tenant }) => {
      await quotas.check(em, 'agents', async () => (await em.count(Agent, {})) + 1);
      const created = em.create(Agent, { name: body.name });
      const changed = await applyAgentWrite(em, tenant.uuid, created, body, true, service.memberChecks);
      return service.saved(em, created, changed, AGENT_TOPICS.created);
    },
  });

const listAgents = ({ service: { reader }, agent }: AgentRouteDeps) =>
  listRoute({
    path: '/api/v1/agents',
    summary: 'List agents, newest first',
    tags,
    query: PageQuery({ status: Type.Optional(Type.Union(AGENT_STATUSES.map((s) => Type.Literal(s)), { description: 'Only agents in this status' })) }),
    item: agent,
    page: async ({ query, em, tenant }) => {
      const where = query.status ? { status: query.status } : {};
      const [page, total] = await em.findAndCount(Agent, where, {
        fields: ['uuid'],
        orderBy: { uuid: 'desc' },
        ...pageWindow(query),
      });
      return [await reader.many(em, tenant.uuid, page.map((a) => a.uuid)), total];
    },
  });

const readAgent = ({ service: { reader }, agent }: AgentRouteDeps) =>
  readRoute({
    path: '/api/v1/agents/:uuid',
    summary: 'Read an agent with all its lists and effective settings',
    tags,
    params: AgentParams,
    resource: agent,
    read: async ({ params, em, tenant }) => {
      const found = await reader.one(em, tenant.uuid, params.uuid);
      if (!found) throw new NotFoundError('Agent not found');
      return found;
    },
  });

const updateAgent = ({ service, agent, slots }: AgentRouteDeps) =>
  defineRoute({
    method: 'PUT',
    path: '/api/v1/agents/:uuid',
    summary: 'Update an agent',
    description:
      'Members present are replaced and absent ones stay. `settings.voice` and `settings.text` merge by group and member. ' +
      'A list present (guidelines, notes, procedures, training, routing_rules, guard_rules) replaces that whole list; its items omit `uuid`.',
    tags,
    params: AgentParams,
    body: agentWriteSchema(slots, { create: false }),
    errors: [404],
    response: DataEnvelope(agent),
    handler: ({ params, body, em, tenant }) => service.update(em, tenant.uuid, params.uuid, body),
  });

const deleteAgent = ({ service }: AgentRouteDeps) =>
  deleteRoute({
    path: '/api/v1/agents/:uuid',
    summary: 'Delete an agent and everything it owns',
    description: 'Refused with 409 while a routing or guard rule of another agent forwards to it.',
    tags,
    params: AgentParams,
    errors: [404, 409],
    message: 'Agent deleted',
    remove: async ({ params, em }) => {
      const found = await service.lockForWrite(em, params.uuid);
      const referrers = await rulesForwardingTo(em, found);
      if (referrers.length > 0) {
        throw new ConflictError(`Agent is the destination of rules of other agents: ${referrers.join('; ')}. Change those rules first.`);
      }
      const event: AgentDeletedEvent = { agent_uuid: found.uuid, name: found.name };
      em.remove(found);
      await em.flush();
      await service.bus.publish(AGENT_TOPICS.deleted, event, { headers: { 'agent-uuid': found.uuid } });
    },
  });

const transitionAgent = ({ service, agent }: AgentRouteDeps, transition: AgentTransition) =>
  defineRoute({
    method: 'POST',
    path: `/api/v1/agents/:uuid/${transition}`,
    summary: transition === 'activate' ? 'Activate an agent (pending or paused -> active)' : 'Pause an agent (active -> paused)',
    description: transition === 'pause' ? 'A pending agent has never been active: pausing it is refused with 409. Pausing a paused agent changes nothing.' : 'Activating an active agent changes nothing.',
    tags,
    params: AgentParams,
    errors: [404, 409],
    response: DataEnvelope(agent),
    handler: async ({ params, em }) => {
      const found = await service.lockForWrite(em, params.uuid);
      const next = nextStatus(found.status, transition);
      if (!next) throw new ConflictError(`A ${found.status} agent cannot be paused; activate it first`);
      if (next === found.status) return { data: await service.reader.one(em, found.tenantUuid, found.uuid) };
      found.status = next;
      return service.saved(em, found, ['status']);
    },
  });

const languageCatalog = defineRoute({
  method: 'GET',
  path: '/api/v1/language',
  summary: 'The language catalog',
  description: 'Codes for `agent.language` and `settings.voice.voice_profile.language`.',
  tags: ['catalogs'],
  response: SuccessEnvelope(
    Type.Object({
      items: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), native_name: Type.String(), flag: Type.String() }, { additionalProperties: false })),
    }),
  ),
  handler: () => ({ success: true, message: 'Languages', data: { items: languages } }),
});

const webhookEventCatalog = (events: readonly AgentWebhookEvent[]) =>
  defineRoute({
    method: 'GET',
    path: '/api/v1/agent-webhook-events',
    summary: 'Event names an agent webhook can subscribe to',
    tags,
    response: SuccessEnvelope(Type.Object({ items: Type.Array(WebhookEvent) })),
    handler: () => ({ success: true, message: 'Webhook events', data: { items: events.map(({ name, description }) => ({ name, description })) } }),
  });

/** Rules of other agents that forward to this one, described for the 409. */
async function rulesForwardingTo(em: EntityManager, agent: Agent): Promise<string[]> {
  const rows: Array<{ kind: string; rule_uuid: string; agent_uuid: string }> = await em.getConnection().execute(
    `select 'routing rule' as kind, uuid as rule_uuid, agent_uuid from agent_routing_rules where destination_agent_uuid = ? and agent_uuid <> ? ` +
      `union all select 'guard rule', uuid, agent_uuid from agent_guard_rules where destination_agent_uuid = ? and agent_uuid <> ? limit 20`,
    [agent.uuid, agent.uuid, agent.uuid, agent.uuid],
    'all',
    em.getTransactionContext(),
  );
  return rows.map((row) => `${row.kind} ${row.rule_uuid} of agent ${row.agent_uuid}`);
}
