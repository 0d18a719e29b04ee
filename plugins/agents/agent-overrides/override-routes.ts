import type { FilterQuery } from '@mikro-orm/core';
import { DeletedEnvelope, NotFoundError, ResourceId, SuccessEnvelope, Type, defineRoute, type HttpService } from '../../../core';
import type { AgentDirectory } from '../agent-directory';
import type { AgentOverrideSettingsDefinition, OverrideRow } from './override-settings';
import type { OverrideStore } from './override-store';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * `GET|PUT /<segment>/default`, `POST /agents/{uuid}/<segment>/assign` and
 * `PUT|DELETE /agents/{uuid}/<segment>`. Every agent route answers 404 for an agent
 * the tenant does not have (another tenant's included) before anything else.
 */
export function registerOverrideRoutes<Row extends OverrideRow, Values, Json, Patch>(
  http: HttpService,
  agents: AgentDirectory,
  definition: AgentOverrideSettingsDefinition<Row, Values, Json, Patch>,
  store: OverrideStore<Row, Values, Json>,
): void {
  const { segment, noun, article, tags, entity, descriptions } = definition;
  const Noun = capitalized(noun);
  const NO_OVERRIDE = `Agent has no ${noun} override; assign one first`;
  const Envelope = SuccessEnvelope(definition.schema);
  const AgentParams = Type.Object({ uuid: ResourceId('agents.agent', 'The agent’s uuid') });
  // Its own kind, not `agents.agent`: the route only answers for an agent that has an
  // override, so the cross-tenant sweep must make one (see ./testing.ts).
  const OverrideParams = Type.Object({ uuid: ResourceId(definition.overrideKind, `The uuid of an agent that has ${article} ${noun} override`) });
  // The write schema has validated the body; its static type is not tied to `Patch` here.
  const patchOf = (body: unknown) => body as Patch;

  const requireAgent = async (agentUuid: string) => {
    if (!(await agents.exists(agentUuid))) throw new NotFoundError('Agent not found');
  };

  http.route(
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
    }),
  );

  http.route(
    defineRoute({
      method: 'PUT',
      path: `/api/v1/${segment}/default`,
      summary: `Change the default ${noun} settings`,
      description: descriptions.changeDefault,
      tags,
      body: definition.writeSchema,
      response: Envelope,
      handler: async ({ body, em, tenant }) => {
        const patch = patchOf(body);
        definition.checkPatch?.(patch);
        let row = await store.find(em, null);
        if (!row) {
          await store.insertIfMissing(em, tenant.uuid, null, definition.builtIn());
          row = (await store.find(em, null))!;
        }
        definition.applyPatch(row, patch);
        await em.flush();
        return { success: true, message: `Default ${noun} settings updated`, data: store.defaultJson(row) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'POST',
      path: `/api/v1/agents/:uuid/${segment}/assign`,
      summary: `Give an agent its own ${noun} settings`,
      description: `${descriptions.assign} When the agent already has one, returns it unchanged (also 200).`,
      tags,
      params: AgentParams,
      errors: [404],
      response: Envelope,
      handler: async ({ params, em, tenant }) => {
        await requireAgent(params.uuid);
        const existing = await store.find(em, params.uuid);
        if (existing) return { success: true, message: `Agent already has ${article} ${noun} override`, data: store.overrideJson(existing) };
        // A copy of the current default: later changes of the default no longer reach this agent.
        const fallback = await store.find(em, null);
        await store.insertIfMissing(em, tenant.uuid, params.uuid, fallback ? definition.valuesOf(fallback) : definition.builtIn());
        const row = (await store.find(em, params.uuid))!;
        return { success: true, message: `${Noun} override assigned`, data: store.overrideJson(row) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'PUT',
      path: `/api/v1/agents/:uuid/${segment}`,
      summary: `Change an agent’s ${noun} override`,
      description: `${descriptions.changeOverride} An agent without an override answers 404 ("${NO_OVERRIDE}"): assign one first.`,
      tags,
      params: OverrideParams,
      body: definition.writeSchema,
      errors: [404],
      response: Envelope,
      handler: async ({ params, body, em }) => {
        await requireAgent(params.uuid);
        const patch = patchOf(body);
        definition.checkPatch?.(patch);
        const row = await store.find(em, params.uuid);
        if (!row) throw new NotFoundError(NO_OVERRIDE);
        definition.applyPatch(row, patch);
        await em.flush();
        return { success: true, message: `${Noun} override updated`, data: store.overrideJson(row) };
      },
    }),
  );

  http.route(
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
    }),
  );
}
