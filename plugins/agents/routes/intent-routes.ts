import {
  ConflictError,
  NotFoundError,
  PageQuery,
  ResourceId,
  Type,
  ValidationError,
  listRoute,
  readRoute,
  type AnyRoute,
  type TSchema,
} from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentIntent } from '../entities';
import { camelFields } from '../list-items';
import { Intent, IntentPatch, IntentWrite } from '../schemas/intent';
import { intentAuthToken } from '../secret-columns';
import { checkUniqueKeys } from '../validation/agent-rules';
import { childListRoutes, type ChildContext, type ChildList } from './child-routes';

const KEY_TAKEN = 'Another intent of this agent has this key';
/** The runtime's tools (decisions-2.md §1) and the appointment tools (§7): fixed names no intent may take. */
export const RESERVED_TOOL_NAMES = ['search_knowledge', 'lookup_records', 'transfer', 'end_conversation', 'find_slots', 'book_appointment', 'reschedule_appointment', 'cancel_appointment'] as const;

/** Intents: the agent's tools. The webhook's auth token is sealed at rest and never returned. */
export const intentRoutes = (service: AgentService, agent: TSchema): AnyRoute[] => [...childListRoutes(service, agent, intentList), listIntents(service), readIntent(service)];

const applyWebhook = (context: ChildContext, row: AgentIntent, webhook: { url?: string | null; auth_token?: string | null } | undefined) => {
  if (!webhook) return;
  if (webhook.url !== undefined) row.webhookUrl = webhook.url;
  if (webhook.auth_token !== undefined) {
    row.webhookAuthToken = webhook.auth_token === null ? null : context.service.secrets.encrypt(webhook.auth_token, intentAuthToken.context(context.tenantUuid));
  }
};
const scalars = (body: Record<string, unknown>) => {
  const { webhook: _webhook, created_at: _created, updated_at: _updated, ...rest } = body;
  return camelFields(rest, ['intent_uuid']);
};
const keyIsFree = async (context: ChildContext, key: string | undefined, self?: string) => {
  if (key === undefined) return;
  // The conversation runtime's own tools have these names (decisions-2.md §1): an intent may not take one.
  if ((RESERVED_TOOL_NAMES as readonly string[]).includes(key)) throw ValidationError.field('body.key', `is the name of a built-in tool (${RESERVED_TOOL_NAMES.join(', ')})`);
  const holder = await context.em.findOne(AgentIntent, { agentUuid: context.agent.uuid, key }, { fields: ['uuid'] });
  if (holder && holder.uuid !== self) throw new ConflictError(KEY_TAKEN);
};

const intentList: ChildList<AgentIntent> = {
  segment: 'intents',
  param: 'intentUuid',
  kind: 'agents.intent',
  member: 'intents',
  noun: 'intent',
  entity: AgentIntent,
  conflict: KEY_TAKEN,
  create: {
    body: IntentWrite,
    description:
      '`key` is the tool name and must be unique within the agent (409 otherwise); the built-in tools’ names (`search_knowledge`, `lookup_records`, `transfer`, `end_conversation`) are refused (422). `webhook.auth_token` is write-only.',
    fields: async (context, body) => {
      checkUniqueKeys(body.parameters, 'parameters', context.errors);
      await keyIsFree(context, body.key);
      const row = new AgentIntent();
      applyWebhook(context, row, body.webhook);
      return { ...scalars(body), webhookUrl: row.webhookUrl, webhookAuthToken: row.webhookAuthToken, parameters: normalizedParameters(body.parameters) };
    },
  },
  update: {
    body: IntentPatch,
    description: 'Only the members sent change; `webhook.auth_token` absent keeps the token, null removes it. `parameters`, when sent, replaces them.',
    apply: async (context, row, body) => {
      checkUniqueKeys(body.parameters, 'parameters', context.errors);
      await keyIsFree(context, body.key, row.uuid);
      const { parameters, ...rest } = scalars(body);
      Object.assign(row, rest);
      if (parameters !== undefined) row.parameters = normalizedParameters(body.parameters);
      applyWebhook(context, row, body.webhook);
    },
  },
  remove: {
    description: 'Refused with 409 while a procedure step calls the intent.',
    check: async (context, row) => {
      const users: Array<{ name: string }> = await context.em
        .getConnection()
        .execute(
          `select name from agent_procedures where agent_uuid = ? and steps @> ?::jsonb limit 10`,
          [context.agent.uuid, JSON.stringify([{ intent_uuid: row.uuid }])],
          'all',
          context.em.getTransactionContext(),
        );
      if (users.length > 0) throw new ConflictError(`Steps of procedures ${users.map((u) => `"${u.name}"`).join(', ')} call this intent; change them first`);
    },
  },
};

const IntentParams = Type.Object({ uuid: ResourceId('agents.agent', 'The agent'), intentUuid: ResourceId('agents.intent', 'The intent') });

const listIntents = (service: AgentService) =>
  listRoute({
    path: '/api/v1/agents/:uuid/intents',
    summary: "List an agent's intents, oldest first",
    tags: ['agents'],
    params: Type.Object({ uuid: ResourceId('agents.agent', 'The agent') }),
    query: PageQuery(),
    errors: [404],
    item: Intent,
    page: async ({ params, query, em, tenant }) => {
      const found = await service.reader.one(em, tenant.uuid, params.uuid);
      if (!found) throw new NotFoundError('Agent not found');
      const all = found.intents as unknown[];
      return [all.slice((query.page - 1) * query.per_page, query.page * query.per_page), all.length];
    },
  });

const readIntent = (service: AgentService) =>
  readRoute({
    path: '/api/v1/agents/:uuid/intents/:intentUuid',
    summary: 'Read one intent of an agent',
    tags: ['agents'],
    params: IntentParams,
    resource: Intent,
    read: async ({ params, em, tenant }) => {
      const found = await service.reader.one(em, tenant.uuid, params.uuid);
      if (!found) throw new NotFoundError('Agent not found');
      const intent = (found.intents as Array<{ intent_uuid: string }>).find((i) => i.intent_uuid === params.intentUuid);
      if (!intent) throw new NotFoundError('Intent not found');
      return intent;
    },
  });

/** Parameters as stored: every member present (`default` '', `type` string, `required` false). */
function normalizedParameters(parameters: Array<{ key: string; default?: string; type?: string; required?: boolean }> | undefined) {
  return (parameters ?? []).map((p) => ({ key: p.key, default: p.default ?? '', type: p.type ?? 'string', required: p.required ?? false }));
}
