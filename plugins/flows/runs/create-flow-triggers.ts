import { boundQuery, newUuid, preparedStatement, type BusService, type OrmService, type PreparedStatement, type TenantService } from '../../../core';
import { publishSegment } from '../engine/segment-message';
import type { DefinitionStep } from '../model/flow-definition';
import type { FlowTriggers, LiveTrigger } from './flow-triggers';

/**
 * A live version's trigger step, read from its definition in the database (not the whole
 * definition: only the trigger step crosses the wire). Parameters: the tenant, then the condition's.
 */
const liveTriggers = (name: string, condition: string) =>
  preparedStatement(
    name,
    `select v.uuid, v.flow_uuid, v.definition->'steps'->(v.definition->>'trigger') as trigger from flow_versions v ` +
      `join flows f on f.uuid = v.flow_uuid and f.tenant_uuid = v.tenant_uuid ` +
      `where ${condition} and v.tenant_uuid = $1 and v.active and f.deleted_at is null`,
  );
const LIVE_BY_APP_TRIGGER = liveTriggers('flows.live-triggers-by-app', 'v.trigger_app_uid = $2 and v.trigger_key = $3');
const LIVE_BY_HOOK_TOKEN = liveTriggers('flows.live-trigger-by-hook', 'v.hook_token = $2');
const LIVE_BY_VERSION = liveTriggers('flows.live-trigger-by-version', 'v.uuid = $2::uuid');

/** An execution of the live flow a hook token addresses (LIVE_BY_HOOK_TOKEN and INSERT_EXECUTION in one statement). */
const INSERT_HOOK_EXECUTION = preparedStatement(
  'flows.execution-insert-by-hook',
  'insert into flow_executions (uuid, tenant_uuid, created_at, updated_at, flow_uuid, version_uuid, status, trigger_event, cursor, segment) ' +
    "select $1::uuid, v.tenant_uuid, $2::timestamptz, $2::timestamptz, v.flow_uuid, v.uuid, 'queued', $3::jsonb, (v.definition->'steps'->(v.definition->>'trigger')->>'next')::uuid, 0 " +
    'from flow_versions v join flows f on f.uuid = v.flow_uuid and f.tenant_uuid = v.tenant_uuid ' +
    'where v.hook_token = $4 and v.tenant_uuid = $5 and v.active and f.deleted_at is null limit 1 returning uuid',
);

/** A new execution, starting at the step after the trigger (read from the version in the same statement). */
const INSERT_EXECUTION = preparedStatement(
  'flows.execution-insert',
  'insert into flow_executions (uuid, tenant_uuid, created_at, updated_at, flow_uuid, version_uuid, status, trigger_event, cursor, segment) ' +
    "select $1::uuid, v.tenant_uuid, $2::timestamptz, $2::timestamptz, $3::uuid, v.uuid, 'queued', $4::jsonb, (v.definition->'steps'->($5::text)->>'next')::uuid, 0 " +
    'from flow_versions v where v.uuid = $6::uuid and v.tenant_uuid = $7 returning uuid',
);

interface LiveTriggerRow {
  uuid: string;
  flow_uuid: string;
  trigger: DefinitionStep;
}

function liveTriggerOf(row: LiveTriggerRow): LiveTrigger {
  return {
    flowUuid: row.flow_uuid,
    versionUuid: row.uuid,
    stepUuid: row.trigger.uuid,
    version: row.trigger.definition_version ?? 1,
    config: row.trigger.config,
    agentUuid: row.trigger.agent_uuid,
    appConnectionUuid: row.trigger.app_connection_uuid,
  };
}

/**
 * FlowTriggers over the versions table. A version is live while it is `active` and its
 * flow is not deleted (deleting a flow does not have to touch its versions). Trigger
 * sources call these on hot paths (a hook request, a tick), so each method is one raw
 * statement in the current transaction; raw SQL bypasses the tenant filter, so every
 * statement names the current tenant itself.
 */
export function createFlowTriggers({ orm, bus, tenants }: { orm: OrmService; bus: BusService; tenants: TenantService }): FlowTriggers {
  const live = async (statement: PreparedStatement, params: unknown[]) =>
    (await boundQuery<LiveTriggerRow>(orm.em, statement, [tenants.require().uuid, ...params])).map(liveTriggerOf);

  return {
    live: (appUid, triggerKey) => live(LIVE_BY_APP_TRIGGER, [appUid, triggerKey]),

    async byHookToken(token) {
      const [trigger] = await live(LIVE_BY_HOOK_TOKEN, [token]);
      return trigger ?? null;
    },

    async liveVersion(versionUuid) {
      const [trigger] = await live(LIVE_BY_VERSION, [versionUuid]);
      return trigger ?? null;
    },

    async fire(trigger, event) {
      const tenant = tenants.require();
      const now = new Date().toISOString();
      const [execution] = await boundQuery<{ uuid: string }>(orm.em, INSERT_EXECUTION, [
        newUuid(),
        now,
        trigger.flowUuid,
        event == null ? null : JSON.stringify(event),
        trigger.stepUuid,
        trigger.versionUuid,
        tenant.uuid,
      ]);
      if (!execution) throw new Error(`flow version ${trigger.versionUuid} does not exist in this tenant`);
      await publishSegment(bus, { execution_uuid: execution.uuid, segment: 0 });
      return { executionUuid: execution.uuid };
    },

    async fireHook(token, event) {
      const [execution] = await boundQuery<{ uuid: string }>(orm.em, INSERT_HOOK_EXECUTION, [
        newUuid(),
        new Date().toISOString(),
        event == null ? null : JSON.stringify(event),
        token,
        tenants.require().uuid,
      ]);
      if (!execution) return null;
      await publishSegment(bus, { execution_uuid: execution.uuid, segment: 0 });
      return { executionUuid: execution.uuid };
    },
  };
}
