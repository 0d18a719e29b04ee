import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FieldErrors } from '../../../core';
import type { FlowAppDefinition } from '../app/flow-app';
import { FlowConnection, type FlowStep, type StepKind } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import type { StepCreate } from './schemas';
import type { StepOrder } from './step-order';

/** Step creation rules of the spec (1-8), checked so that one 422 names every problem. */

export function addError(errors: FieldErrors, path: string, message: string): void {
  (errors[path] ??= []).push(message);
}

/** Rules 4-6: what a step of `app` must be bound to. Checked when a step is created and again when it is changed. */
export async function checkBindings(
  em: EntityManager,
  runtime: FlowsRuntime,
  app: FlowAppDefinition,
  kind: StepKind,
  binding: { appConnectionUuid: string | null; agentUuid: string | null },
  errors: FieldErrors,
): Promise<void> {
  if (app.category === 'connect') {
    if (!binding.appConnectionUuid) {
      addError(errors, 'app_connection_uuid', `is required: "${app.uid}" is a connect app (create a connection with POST /api/v1/flow/connections)`);
    } else {
      // Locked for share: a concurrent DELETE of the connection (which checks no step uses it) waits for this step to commit.
      const connection = await em.findOne(FlowConnection, { uuid: binding.appConnectionUuid }, { lockMode: LockMode.PESSIMISTIC_READ });
      if (connection?.appUid !== app.uid) addError(errors, 'app_connection_uuid', `is not a connection of app "${app.uid}" in this tenant`);
    }
  } else if (binding.appConnectionUuid) {
    addError(errors, 'app_connection_uuid', `must be null: "${app.uid}" is a builtin app and takes no connection`);
  }

  if (app.requiresAgent) {
    if (binding.agentUuid) {
      if (!(await runtime.agents.exists(binding.agentUuid))) addError(errors, 'agent_uuid', 'is not an agent of this tenant');
    } else if (kind === 'action') {
      addError(errors, 'agent_uuid', `is required: actions of "${app.uid}" act on an agent`);
    }
  } else if (binding.agentUuid) {
    addError(errors, 'agent_uuid', `must be null: steps of "${app.uid}" take no agent`);
  }
}

/** Where a new action goes: its sibling group, and the `ord` it follows (siblings after it shift by one). */
export interface Placement {
  parentStepUuid: string | null;
  branchKey: string | null;
  afterOrd: number;
}

const describe = (step: FlowStep, order: StepOrder) => `step ${order.position(step)} (${step.appUid}.${step.actionKey ?? step.triggerKey})`;

/**
 * Rules 1 and 7: the place of a new action. Appended by default (to the top-level
 * chain, or to the branch with `parent_step_uuid`); `insert_after_step_uuid` puts it
 * right after that step in that step's chain, or, with `parent_step_uuid`, after the
 * parent itself (first in the branch) or after a step of that branch.
 */
export function placeAction(body: StepCreate, order: StepOrder, errors: FieldErrors): Placement | null {
  const branchKey = body.branch_key ?? null;
  let parent: FlowStep | null = null;
  if (body.parent_step_uuid) {
    parent = order.byUuid.get(body.parent_step_uuid) ?? null;
    if (!parent) {
      addError(errors, 'parent_step_uuid', 'is not a step of this flow');
      return null;
    }
    const branches = order.catalog.branchesOf(parent);
    if (branches.length === 0) {
      addError(errors, 'parent_step_uuid', `${describe(parent, order)} does not branch: a branch child needs a branching step such as if_condition`);
      return null;
    }
    if (branchKey === null || !branches.includes(branchKey)) {
      addError(errors, 'branch_key', `${branchKey === null ? 'is required with parent_step_uuid' : `"${branchKey}" is not a branch of ${describe(parent, order)}`}: one of ${branches.join(', ')}`);
      return null;
    }
  } else if (branchKey !== null) {
    addError(errors, 'branch_key', 'is only allowed with parent_step_uuid');
    return null;
  }

  const parentStepUuid = parent?.uuid ?? null;
  if (!body.insert_after_step_uuid) {
    const last = Math.max(0, ...order.siblings(parentStepUuid, branchKey).map((step) => step.ord));
    return { parentStepUuid, branchKey, afterOrd: last };
  }
  const anchor = order.byUuid.get(body.insert_after_step_uuid);
  if (!anchor) {
    addError(errors, 'insert_after_step_uuid', 'is not a step of this flow');
    return null;
  }
  if (!parent) return { parentStepUuid: anchor.parentStepUuid, branchKey: anchor.branchKey, afterOrd: anchor.kind === 'trigger' ? 0 : anchor.ord };
  if (anchor === parent) return { parentStepUuid, branchKey, afterOrd: 0 };
  if (anchor.parentStepUuid === parentStepUuid && anchor.branchKey === branchKey) return { parentStepUuid, branchKey, afterOrd: anchor.ord };
  addError(errors, 'insert_after_step_uuid', `must be the parent step or a step of its "${branchKey}" branch`);
  return null;
}

/** Gives `step` its place: later siblings move one down, in the same transaction. */
export function insertAt(step: FlowStep, placement: Placement, order: StepOrder): void {
  for (const sibling of order.siblings(placement.parentStepUuid, placement.branchKey)) if (sibling.ord > placement.afterOrd) sibling.ord += 1;
  step.parentStepUuid = placement.parentStepUuid;
  step.branchKey = placement.branchKey;
  step.ord = placement.afterOrd + 1;
}
