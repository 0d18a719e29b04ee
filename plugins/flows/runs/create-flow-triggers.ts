import { newUuid, type BusService, type OrmService, type TenantService } from '../../../core';
import { publishSegment } from '../engine/segment-message';
import type { DefinitionStep } from '../model/flow-definition';
import type { FlowTriggers, LiveTrigger } from './flow-triggers';

/**
 * A live version's trigger step, read from its definition in the database (not the whole
 * definition: only the trigger step crosses the wire). `?` placeholders: the condition's, then the tenant.
 */
const liveTriggersWhere = (condition: string) =>
  `select v.uuid, v.flow_uuid, v.definition->'steps'->(v.definition->>'trigger') as trigger from flow_versions v ` +
  `join flows f on f.uuid = v.flow_uuid and f.tenant_uuid = v.tenant_uuid ` +
  `where ${condition} and v.tenant_uuid = ? and v.active and f.deleted_at is null`;

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
  const query = (sql: string, params: unknown[]): Promise<any[]> => orm.em.getConnection().execute(sql, params, 'all', orm.em.getTransactionContext());
  const liveTriggers = async (condition: string, params: unknown[]) =>
    ((await query(liveTriggersWhere(condition), [...params, tenants.require().uuid])) as LiveTriggerRow[]).map(liveTriggerOf);

  return {
    live: (appUid, triggerKey) => liveTriggers('v.trigger_app_uid = ? and v.trigger_key = ?', [appUid, triggerKey]),

    async byHookToken(token) {
      const [trigger] = await liveTriggers('v.hook_token = ?', [token]);
      return trigger ?? null;
    },

    async liveVersion(versionUuid) {
      const [trigger] = await liveTriggers('v.uuid = ?::uuid', [versionUuid]);
      return trigger ?? null;
    },

    async fire(trigger, event) {
      const tenant = tenants.require();
      const now = new Date().toISOString();
      // The execution starts at the step after the trigger, read from the version in the same statement.
      const [execution] = await query(
        'insert into flow_executions (uuid, tenant_uuid, created_at, updated_at, flow_uuid, version_uuid, status, trigger_event, cursor, segment) ' +
          "select ?::uuid, v.tenant_uuid, ?::timestamptz, ?::timestamptz, ?::uuid, v.uuid, 'queued', ?::jsonb, (v.definition->'steps'->?->>'next')::uuid, 0 " +
          'from flow_versions v where v.uuid = ?::uuid and v.tenant_uuid = ? returning uuid',
        [newUuid(), now, now, trigger.flowUuid, event == null ? null : JSON.stringify(event), trigger.stepUuid, trigger.versionUuid, tenant.uuid],
      );
      if (!execution) throw new Error(`flow version ${trigger.versionUuid} does not exist in this tenant`);
      await publishSegment(bus, { execution_uuid: execution.uuid, segment: 0 });
      return { executionUuid: execution.uuid };
    },
  };
}
