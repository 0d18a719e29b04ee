import type { FilterQuery } from '@mikro-orm/core';
import { DeletedEnvelope, NotFoundError, ResourceId, SuccessEnvelope, Type, defineRoute, type AnyRoute } from '../../../core';
import type { AgentDirectory } from '../agent-directory';
import type { AgentOverrideSettingsDefinition, OverrideRow } from './override-settings';
import type { OverrideStore } from './override-store';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

type Definition<Row extends OverrideRow> = AgentOverrideSettingsDefinition<Row, any, any, any>;

/** What the five routes of one plugin's override settings share. */
function overrideKit<Row extends OverrideRow>(agents: AgentDirectory, definition: Definition<Row>, store: OverrideStore<Row, any, any>) {
  const { noun, article } = definition;
  return {
    definition,
    store,
    Noun: capitalized(noun),
    NO_OVERRIDE: `Agent has no ${noun} override; assign one first`,
    Envelope: SuccessEnvelope(definition.schema),
    AgentParams: Type.Object({ uuid: ResourceId('agents.agent', 'The agent’s uuid') }),
    // Its own kind, not `agents.agent`: the route only answers for an agent that has an
    // override, so the cross-tenant sweep must make one (see ./testing.ts).
    OverrideParams: Type.Object({ uuid: ResourceId(definition.overrideKind, `The uuid of an agent that has ${article} ${noun} override`) }),
    requireAgent: async (agentUuid: string) => {
      if (!(await agents.exists(agentUuid))) throw new NotFoundError('Agent not found');
    },
  };
}

type OverrideKit<Row extends OverrideRow> = ReturnType<typeof overrideKit<Row>>;

/**
 * `GET|PUT /<segment>/default`, `POST /agents/{uuid}/<segment>/assign` and
 * `PUT|DELETE /agents/{uuid}/<segment>`. Every agent route answers 404 for an agent
 * the tenant does not have (another tenant's included) before anything else.
 */
export function overrideRoutes<Row extends OverrideRow, Values, Json, Patch>(
  agents: AgentDirectory,
  definition: AgentOverrideSettingsDefinition<Row, Values, Json, Patch>,
  store: OverrideStore<Row, Values, Json>,
): AnyRoute[] {
  const kit = overrideKit(agents, definition, store);
  return [readDefault(kit), changeDefault(kit), assignOverride(kit), changeOverride(kit), removeOverride(kit)];
}

const readDefault = <Row extends OverrideRow>({ definition: { segment, noun, tags, descriptions }, store, Envelope }: OverrideKit<Row>) =>
  defineRoute({
    method: 'GET',
    path: `/api/v1/${segment}/default`,
    summary: `Read the default ${noun} settings`,
    description:
      'The tenant-wide default, used by every agent without an override. Always `source=default` and `agent_uuid=null`; ' +
      `before it is first saved, the built-in values${descriptions.builtIn ? ` (${descriptions.builtIn})` : ''} with null timestamps.`,
    tags,
    response: Envelope,
    handler: async ({ em }) => ({ success: true, message: `Default ${noun} settings`, data: store.defaultJson(await store.find(em, null)) }),
  });

const changeDefault = <Row extends OverrideRow>({ definition, store, Envelope }: OverrideKit<Row>) =>
  defineRoute({
    method: 'PUT',
    path: `/api/v1/${definition.segment}/default`,
    summary: `Change the default ${definition.noun} settings`,
    description: definition.descriptions.changeDefault,
    tags: definition.tags,
    body: definition.writeSchema,
    response: Envelope,
    // The write schema has validated the body; its static type is not tied to the definition's patch here.
    handler: async ({ body: patch, em, tenant }) => {
      definition.checkPatch?.(patch);
      let row = await store.find(em, null);
      if (!row) {
        await store.insertIfMissing(em, tenant.uuid, null, definition.builtIn());
        row = (await store.find(em, null))!;
      }
      definition.applyPatch(row, patch);
      await em.flush();
      return { success: true, message: `Default ${definition.noun} settings updated`, data: store.defaultJson(row) };
    },
  });

const assignOverride = <Row extends OverrideRow>({ definition, store, Envelope, AgentParams, Noun, requireAgent }: OverrideKit<Row>) =>
  defineRoute({
    method: 'POST',
    path: `/api/v1/agents/:uuid/${definition.segment}/assign`,
    summary: `Give an agent its own ${definition.noun} settings`,
    description: `${definition.descriptions.assign} When the agent already has one, returns it unchanged (also 200).`,
    tags: definition.tags,
    params: AgentParams,
    errors: [404],
    response: Envelope,
    handler: async ({ params, em, tenant }) => {
      await requireAgent(params.uuid);
      const existing = await store.find(em, params.uuid);
      if (existing) return { success: true, message: `Agent already has ${definition.article} ${definition.noun} override`, data: store.overrideJson(existing) };
      // A copy of the current default: later changes of the default no longer reach this agent.
      const fallback = await store.find(em, null);
      await store.insertIfMissing(em, tenant.uuid, params.uuid, fallback ? definition.valuesOf(fallback) : definition.builtIn());
      const row = (await store.find(em, params.uuid))!;
      return { success: true, message: `${Noun} override assigned`, data: store.overrideJson(row) };
    },
  });

const changeOverride = <Row extends OverrideRow>({ definition, store, Envelope, OverrideParams, Noun, NO_OVERRIDE, requireAgent }: OverrideKit<Row>) =>
  defineRoute({
    method: 'PUT',
    path: `/api/v1/agents/:uuid/${definition.segment}`,
    summary: `Change an agent’s ${definition.noun} override`,
    description: `${definition.descriptions.changeOverride} An agent without an override answers 404 ("${NO_OVERRIDE}"): assign one first.`,
    tags: definition.tags,
    params: OverrideParams,
    body: definition.writeSchema,
    errors: [404],
    response: Envelope,
    handler: async ({ params, body: patch, em }) => {
      await requireAgent(params.uuid);
      definition.checkPatch?.(patch);
      const row = await store.find(em, params.uuid);
      if (!row) throw new NotFoundError(NO_OVERRIDE);
      definition.applyPatch(row, patch);
      await em.flush();
      return { success: true, message: `${Noun} override updated`, data: store.overrideJson(row) };
    },
  });

const removeOverride = <Row extends OverrideRow>({ definition: { segment, noun, tags, entity }, AgentParams, Noun, requireAgent }: OverrideKit<Row>) =>
  defineRoute({
    method: 'DELETE',
    path: `/api/v1/agents/:uuid/${segment}`,
    summary: `Remove an agent’s ${noun} override`,
    description: 'The agent goes back to the default. Idempotent: `data.deleted` is false when the agent had no override.',
    tags,
    params: AgentParams,
    errors: [404],
    response: DeletedEnvelope,
    handler: async ({ params, em, tenant }) => {
      await requireAgent(params.uuid);
      const count = await em.nativeDelete(entity, { tenantUuid: tenant.uuid, agentUuid: params.uuid } as FilterQuery<Row>);
      return count > 0
        ? { success: true, message: `${Noun} override removed`, data: { deleted: true } }
        : { success: true, message: `Agent had no ${noun} override`, data: { deleted: false } };
    },
  });
