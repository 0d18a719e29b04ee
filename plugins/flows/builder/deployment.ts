import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, ValidationError, type FieldErrors, type TenantRef } from '../../../core';
import type { TriggerLifecycleContext } from '../app/flow-app';
import { FlowVersion, type Flow } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import type { DefinitionStep, FlowDefinition } from '../model/flow-definition';
import { links } from '../model/step-tree';
import { loadNamed, storeStatuses } from './flow-view';
import { StepOrder, stepsOf } from './step-order';

/**
 * Deploy and undeploy. Deploying snapshots the flow into an immutable version
 * (executions run a version, so later edits never change them) and starts its
 * trigger; undeploying stops the trigger and deactivates the version. Both run in the
 * request's transaction with the flow row locked, the trigger's hooks included.
 */

function lifecycleContext(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, flow: Flow, version: FlowVersion): TriggerLifecycleContext {
  const trigger = version.definition.steps[version.definition.trigger];
  return {
    tenant,
    em,
    egress: runtime.egress,
    logger: runtime.logger.child({ flow_uuid: flow.uuid, version_uuid: version.uuid }),
    bus: runtime.bus,
    input: trigger.config,
    agentUuid: trigger.agent_uuid,
    step: { flowUuid: flow.uuid, stepUuid: trigger.uuid, versionUuid: version.uuid },
  };
}

/** 422 unless the flow has a trigger and every step is ready (statuses just stored), naming the steps by position. */
function checkDeployable(order: StepOrder): void {
  if (!order.trigger()) {
    throw new ValidationError({ steps: ['the flow has no trigger: add one (POST /api/v1/flow/{uuid}/steps with trigger_key) before deploying'] }, 'The flow has no trigger');
  }
  const errors: FieldErrors = {};
  for (const step of order.flat) {
    if (step.status === 'ready') continue;
    const position = order.position(step);
    errors[`steps.${position}`] = [`step ${position} (${step.appUid}.${step.triggerKey ?? step.actionKey}) is not ready: ${step.statusMessage}`];
  }
  const count = Object.keys(errors).length;
  if (count > 0) throw new ValidationError(errors, `${count} step${count === 1 ? ' is' : 's are'} not ready`);
}

function definitionOf(order: StepOrder): FlowDefinition {
  const linked = links(order.steps, (step) => order.catalog.branchesOf(step));
  const steps: Record<string, DefinitionStep> = {};
  for (const step of order.flat) {
    const { next, branches } = linked.get(step.uuid) ?? { next: null };
    steps[step.uuid] = {
      uuid: step.uuid,
      position: order.position(step),
      kind: step.kind,
      app_uid: step.appUid,
      trigger_key: step.triggerKey,
      action_key: step.actionKey,
      definition_version: step.definitionVersion,
      agent_uuid: step.agentUuid,
      app_connection_uuid: step.appConnectionUuid,
      config: step.config,
      continue_on_error: step.continueOnError,
      next,
      ...(branches ? { branches } : {}),
    };
  }
  return { trigger: order.trigger()!.uuid, steps };
}

/** `flow` must be locked by the caller. */
export async function deploy(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, flow: Flow): Promise<void> {
  if (flow.status === 'live') throw new ConflictError('The flow is already live: undeploy it first to deploy a new version');
  const order = new StepOrder(await stepsOf(em, flow.uuid), runtime.catalog);
  storeStatuses(order, await loadNamed(em, runtime, order.steps));
  checkDeployable(order);

  const trigger = order.trigger()!;
  const [latest] = await em.find(FlowVersion, { flowUuid: flow.uuid }, { orderBy: { number: 'desc' }, limit: 1, fields: ['number'] });
  const version = em.create(FlowVersion, {
    flowUuid: flow.uuid,
    number: (latest?.number ?? 0) + 1,
    definition: definitionOf(order),
    triggerAppUid: trigger.appUid,
    triggerKey: trigger.triggerKey!,
    hookToken: trigger.hookToken,
    active: true,
  });
  flow.status = 'live';
  flow.liveVersionUuid = version.uuid;
  await em.flush();
  await runtime.catalog.trigger(trigger.appUid, trigger.triggerKey!, trigger.definitionVersion)!.onDeploy?.(lifecycleContext(runtime, em, tenant, flow, version));
}

/** Back to `draft`: the live version stops (its trigger's `onUndeploy` runs) and stays as history. A draft flow is left as it is. `flow` must be locked by the caller. */
export async function undeploy(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, flow: Flow): Promise<void> {
  if (flow.status !== 'live') return;
  const version = await em.findOneOrFail(FlowVersion, { uuid: flow.liveVersionUuid! });
  flow.status = 'draft';
  flow.liveVersionUuid = null;
  version.active = false;
  await em.flush();
  // The version of the trigger it was deployed with; none to call when the app no longer lists it.
  const deployed = version.definition.steps[version.definition.trigger];
  const trigger = runtime.catalog.trigger(version.triggerAppUid, version.triggerKey, deployed.definition_version ?? 1);
  await trigger?.onUndeploy?.(lifecycleContext(runtime, em, tenant, flow, version));
}
