import type { EntityManager } from '@mikro-orm/postgresql';
import type { TriggerEventContext } from '../app/flow-app';
import type { FlowsRuntime } from '../flows-runtime';
import type { LiveTrigger } from '../runs/flow-triggers';

/** What trigger code run for a live flow (an event's `matches`, a poll's `run`) is given, in the current tenant. */
export function liveTriggerContext(runtime: FlowsRuntime, em: EntityManager, live: LiveTrigger): TriggerEventContext {
  return {
    tenant: runtime.tenants.require(),
    em,
    egress: runtime.egress,
    logger: runtime.logger.child({ flow_uuid: live.flowUuid, version_uuid: live.versionUuid }),
    step: { flowUuid: live.flowUuid, stepUuid: live.stepUuid, versionUuid: live.versionUuid },
    agentUuid: live.agentUuid,
  };
}
