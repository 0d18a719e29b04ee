import type { FilterQuery } from '@mikro-orm/core';
import { findByUuid, type BusService, type OrmService, type TenantService } from '../../../core';
import { publishSegment } from '../engine/segment-message';
import { FlowExecution, FlowVersion } from '../entities';
import type { FlowTriggers, LiveTrigger } from './flow-triggers';

function liveTriggerOf(version: FlowVersion): LiveTrigger {
  const trigger = version.definition.steps[version.definition.trigger];
  return {
    flowUuid: version.flowUuid,
    versionUuid: version.uuid,
    stepUuid: trigger.uuid,
    config: trigger.config,
    agentUuid: trigger.agent_uuid,
    appConnectionUuid: trigger.app_connection_uuid,
  };
}

/**
 * FlowTriggers over the versions table. A version is live while it is `active` and its
 * flow is not deleted (deleting a flow does not have to touch its versions). Every
 * query runs through the tenant filter, in the current transaction.
 */
export function createFlowTriggers({ orm, bus, tenants }: { orm: OrmService; bus: BusService; tenants: TenantService }): FlowTriggers {
  // `flowUuid` maps to the flow's key, so the condition on the flow (an implicit join) needs the cast.
  const liveVersions = (where: FilterQuery<FlowVersion>) =>
    orm.em.find(FlowVersion, { ...(where as object), active: true, flowUuid: { deletedAt: null } } as FilterQuery<FlowVersion>);

  return {
    async live(appUid, triggerKey) {
      tenants.require();
      return (await liveVersions({ triggerAppUid: appUid, triggerKey })).map(liveTriggerOf);
    },

    async byHookToken(token) {
      tenants.require();
      const [version] = await liveVersions({ hookToken: token });
      return version ? liveTriggerOf(version) : null;
    },

    async liveVersion(versionUuid) {
      tenants.require();
      const [version] = await liveVersions({ uuid: versionUuid });
      return version ? liveTriggerOf(version) : null;
    },

    async fire(trigger, event) {
      const em = orm.em;
      // Usually in the identity map already: the trigger was just looked up through this EntityManager.
      const version = await findByUuid(em, FlowVersion, trigger.versionUuid);
      if (!version) throw new Error(`flow version ${trigger.versionUuid} does not exist in this tenant`);
      const execution = em.create(FlowExecution, {
        flowUuid: trigger.flowUuid,
        versionUuid: version.uuid,
        triggerEvent: event ?? null,
        cursor: version.definition.steps[trigger.stepUuid]?.next ?? null,
      });
      await em.flush();
      await publishSegment(bus, { execution_uuid: execution.uuid, segment: 0 });
      return { executionUuid: execution.uuid };
    },
  };
}
