import {
  DeletedEnvelope,
  NotFoundError,
  SuccessEnvelope,
  defineRoute,
  type HttpService,
} from '../../core';
import type { AgentDirectory } from '../agents';
import { MemorizeSettings } from './memorize-settings.entity';
import {
  BUILT_IN_DEFAULTS,
  applyPatch,
  checkPatch,
  defaultJson,
  findSettings,
  insertIfMissing,
  overrideJson,
} from './memorize-store';
import { AgentParams, MemorizeSettingsSchema, MemorizeSettingsWrite, OverrideParams } from './schemas';

const TAGS = ['memorize'];
const Envelope = SuccessEnvelope(MemorizeSettingsSchema);
export const NO_OVERRIDE = 'Agent has no memorize override; assign one first';

export function registerMemorizeRoutes(http: HttpService, agents: AgentDirectory): void {
  const requireAgent = async (agentUuid: string) => {
    if (!(await agents.exists(agentUuid))) throw new NotFoundError('Agent not found');
  };

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/memorize/default',
      summary: 'Read the default memorize settings',
      description: 'The tenant-wide default, used by every agent without an override. Always `source=default` and `agent_uuid=null`; before it is first saved, the built-in values with null timestamps.',
      tags: TAGS,
      response: Envelope,
      handler: async ({ em }) => ({ success: true, message: 'Default memorize settings', data: defaultJson(await findSettings(em, null)) }),
    }),
  );

  http.route(
    defineRoute({
      method: 'PUT',
      path: '/api/v1/memorize/default',
      summary: 'Change the default memorize settings',
      description: 'Partial update of the tenant-wide default: members left out keep their value. `fields` replaces the whole list; its keys must be unique.',
      tags: TAGS,
      body: MemorizeSettingsWrite,
      response: Envelope,
      handler: async ({ body, em, tenant }) => {
        checkPatch(body);
        let row = await findSettings(em, null);
        if (!row) {
          await insertIfMissing(em, tenant.uuid, null, BUILT_IN_DEFAULTS);
          row = (await findSettings(em, null))!;
        }
        applyPatch(row, body);
        await em.flush();
        return { success: true, message: 'Default memorize settings updated', data: defaultJson(row) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/agents/:uuid/memorize/assign',
      summary: 'Give an agent its own memorize settings',
      description:
        'Creates the agent’s override, initialised from the current default, so that it can be changed without touching the default. ' +
        'When the agent already has one, returns it unchanged (also 200).',
      tags: TAGS,
      params: AgentParams,
      errors: [404],
      response: Envelope,
      handler: async ({ params, em, tenant }) => {
        await requireAgent(params.uuid);
        const existing = await findSettings(em, params.uuid);
        if (existing) return { success: true, message: 'Agent already has a memorize override', data: overrideJson(existing) };
        const fallback = defaultJson(await findSettings(em, null));
        await insertIfMissing(em, tenant.uuid, params.uuid, fallback);
        const row = (await findSettings(em, params.uuid))!;
        return { success: true, message: 'Memorize override assigned', data: overrideJson(row) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'PUT',
      path: '/api/v1/agents/:uuid/memorize',
      summary: 'Change an agent’s memorize override',
      description:
        'Partial update of the agent’s override: members left out keep their value. `fields` replaces the whole list; its keys must be unique. ' +
        `An agent without an override answers 404 ("${NO_OVERRIDE}"): assign one first.`,
      tags: TAGS,
      params: OverrideParams,
      body: MemorizeSettingsWrite,
      errors: [404],
      response: Envelope,
      handler: async ({ params, body, em }) => {
        await requireAgent(params.uuid);
        checkPatch(body);
        const row = await findSettings(em, params.uuid);
        if (!row) throw new NotFoundError(NO_OVERRIDE);
        applyPatch(row, body);
        await em.flush();
        return { success: true, message: 'Memorize override updated', data: overrideJson(row) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/agents/:uuid/memorize',
      summary: 'Remove an agent’s memorize override',
      description: 'The agent goes back to the default. Idempotent: `data.deleted` is false when the agent had no override.',
      tags: TAGS,
      params: AgentParams,
      errors: [404],
      response: DeletedEnvelope,
      handler: async ({ params, em, tenant }) => {
        await requireAgent(params.uuid);
        const count = await em.nativeDelete(MemorizeSettings, { tenantUuid: tenant.uuid, agentUuid: params.uuid });
        return count > 0
          ? { success: true, message: 'Memorize override removed', data: { deleted: true } }
          : { success: true, message: 'Agent had no memorize override', data: { deleted: false } };
      },
    }),
  );
}
