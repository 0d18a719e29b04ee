import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../../core';
import type { FlowCatalog } from '../app/flow-catalog';
import { Flow, FlowStep } from '../entities';
import { flatten, mayReference, positions } from '../model/step-tree';

/** A flow that is not soft-deleted; locked (`select ... for update`) for a write, so concurrent edits of one flow run one after another. */
export async function findFlow(em: EntityManager, uuid: string, options: { lock?: boolean } = {}): Promise<Flow> {
  const flow = await em.findOne(Flow, { uuid, deletedAt: null }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!flow) throw new NotFoundError('Flow not found');
  return flow;
}

/** The flow, locked, for a structural edit (rule 8: a live flow's steps cannot change). */
export async function lockDraftFlow(em: EntityManager, uuid: string): Promise<Flow> {
  const flow = await findFlow(em, uuid, { lock: true });
  if (flow.status === 'live') throw new ConflictError('The flow is live: undeploy it first (POST /api/v1/flow/{uuid}/undeploy), then edit its steps');
  return flow;
}

export const stepsOf = (em: EntityManager, flowUuid: string): Promise<FlowStep[]> => em.find(FlowStep, { flowUuid });

/** A flow's steps in flow order, and the numbers clients see them under. */
export class StepOrder {
  readonly flat: FlowStep[];
  readonly positions: Map<string, number>;
  readonly byUuid: Map<string, FlowStep>;

  constructor(
    readonly steps: readonly FlowStep[],
    readonly catalog: FlowCatalog,
  ) {
    this.flat = flatten(steps, (step) => catalog.branchesOf(step));
    this.positions = positions(this.flat);
    this.byUuid = new Map(steps.map((step) => [step.uuid, step]));
  }

  position(step: FlowStep): number {
    return this.positions.get(step.uuid)!;
  }

  trigger(): FlowStep | undefined {
    return this.steps.find((step) => step.kind === 'trigger');
  }

  /** The steps of one sibling group (the top-level chain, or one branch of a branching step). */
  siblings(parentStepUuid: string | null, branchKey: string | null): FlowStep[] {
    return this.steps.filter((step) => step.parentStepUuid === parentStepUuid && step.branchKey === branchKey && step.kind === 'action');
  }

  /** How `{{stepN...}}` in `referrer`'s config resolves: to an earlier step whose output is there whenever `referrer` runs. */
  resolverFor(referrer: FlowStep) {
    const own = this.position(referrer);
    return (n: number): { uuid: string } | { error: string } => {
      const target = this.flat[n - 1];
      if (!target) return { error: `step ${n} does not exist (the flow has ${this.flat.length} steps)` };
      if (n >= own) return { error: `step ${n} does not come before this step (step ${own}): a step can only use the output of earlier steps` };
      if (!mayReference(referrer, target, this.positions, this.byUuid)) {
        return { error: `step ${n} is in another branch than this step (step ${own}): its output is never there when this step runs` };
      }
      return { uuid: target.uuid };
    };
  }
}
