import fc from 'fast-check';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { flowWithTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/**
 * A property test of random edit sequences: inserts anywhere (appended, mid-chain,
 * first in a branch, at the end of a branch) with references to random steps the new
 * step may use, and deletes of random steps (a branching step with its children).
 * The test keeps its own model of the flow, independent of the server's code: after
 * every edit the server must list the steps in the model's order as 1..N, every
 * reference must still name the step it was written against (under that step's
 * current number), and every reference to a deleted step must be reported.
 */

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

interface ModelStep {
  uuid: string;
  parent: string | null;
  branch: string | null;
  branching: boolean;
  /** The steps its config refers to, in the order written. */
  refs: string[];
}

const groupKey = (parent: string | null, branch: string | null) => `${parent ?? ''}/${branch ?? ''}`;
const BRANCHES = ['true', 'false'];

class FlowModel {
  readonly steps = new Map<string, ModelStep>();
  /** Each sibling group's steps in order; the top-level group starts with the trigger. */
  readonly groups = new Map<string, string[]>();

  constructor(trigger: string) {
    this.steps.set(trigger, { uuid: trigger, parent: null, branch: null, branching: false, refs: [] });
    this.groups.set(groupKey(null, null), [trigger]);
  }

  flat(): string[] {
    const out: string[] = [];
    const walk = (key: string) => {
      for (const uuid of this.groups.get(key) ?? []) {
        out.push(uuid);
        if (this.steps.get(uuid)!.branching) for (const branch of BRANCHES) walk(groupKey(uuid, branch));
      }
    };
    walk(groupKey(null, null));
    return out;
  }

  insert(step: ModelStep, index: number): void {
    const key = groupKey(step.parent, step.branch);
    const group = this.groups.get(key) ?? [];
    group.splice(index, 0, step.uuid);
    this.groups.set(key, group);
    this.steps.set(step.uuid, step);
  }

  rename(from: string, to: string): void {
    const step = this.steps.get(from)!;
    this.steps.delete(from);
    this.steps.set(to, { ...step, uuid: to });
    const group = this.groups.get(groupKey(step.parent, step.branch))!;
    group[group.indexOf(from)] = to;
  }

  remove(uuid: string): void {
    const step = this.steps.get(uuid)!;
    const group = this.groups.get(groupKey(step.parent, step.branch))!;
    group.splice(group.indexOf(uuid), 1);
    this.steps.delete(uuid);
    for (const branch of BRANCHES) for (const child of [...(this.groups.get(groupKey(uuid, branch)) ?? [])]) this.remove(child);
  }

  /** Branching steps above `uuid`, with the branch it is under. */
  private branchPath(uuid: string): Map<string, string> {
    const path = new Map<string, string>();
    for (let step = this.steps.get(uuid); step?.parent; step = this.steps.get(step.parent)) path.set(step.parent, step.branch!);
    return path;
  }

  /** Steps `uuid` may refer to: earlier ones, not in another branch of a branching step above it. */
  usableBy(uuid: string): string[] {
    const flat = this.flat();
    const mine = this.branchPath(uuid);
    return flat.slice(0, flat.indexOf(uuid)).filter((other) => [...this.branchPath(other)].every(([parent, branch]) => !mine.has(parent) || mine.get(parent) === branch));
  }

  /** The config member as the server must render it now: each reference under its step's current number, or as deleted. */
  expectedText(step: ModelStep): string {
    const flat = this.flat();
    return ['refs:', ...step.refs.map((ref) => (this.steps.has(ref) ? `{{step${flat.indexOf(ref) + 1}.echoed}}` : '{{deleted_step.echoed}}'))].join(' ');
  }
}

type Edit =
  | { op: 'insert'; where: 'append' | 'after' | 'branch-end' | 'branch-first'; target: number; branch: number; branching: boolean; refs: number[] }
  | { op: 'delete'; target: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      where: fc.constantFrom('append' as const, 'after' as const, 'branch-end' as const, 'branch-first' as const),
      target: fc.nat(),
      branch: fc.nat(1),
      branching: fc.boolean(),
      refs: fc.array(fc.nat(), { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target: fc.nat() }) },
);

/** Applies one insert to the model and the server; returns nothing when the edit does not apply (no step to delete). */
async function insert(flowUuid: string, model: FlowModel, edit: Extract<Edit, { op: 'insert' }>): Promise<void> {
  const flat = model.flat();
  const branchingSteps = flat.filter((uuid) => model.steps.get(uuid)!.branching);
  const placement: Json = {};
  let parent: string | null = null;
  let branch: string | null = null;
  let index: number;
  if ((edit.where === 'branch-end' || edit.where === 'branch-first') && branchingSteps.length > 0) {
    parent = branchingSteps[edit.target % branchingSteps.length];
    branch = BRANCHES[edit.branch];
    Object.assign(placement, { parent_step_uuid: parent, branch_key: branch });
    if (edit.where === 'branch-first') placement.insert_after_step_uuid = parent;
    index = edit.where === 'branch-first' ? 0 : (model.groups.get(groupKey(parent, branch))?.length ?? 0);
  } else if (edit.where === 'after') {
    const anchor = model.steps.get(flat[edit.target % flat.length])!;
    placement.insert_after_step_uuid = anchor.uuid;
    [parent, branch] = [anchor.parent, anchor.branch];
    index = model.groups.get(groupKey(parent, branch))!.indexOf(anchor.uuid) + 1;
  } else {
    index = model.groups.get(groupKey(null, null))!.length;
  }

  // Place it in the model first, so the references are numbered as the server will number them with the step in place.
  model.insert({ uuid: 'new', parent, branch, branching: edit.branching, refs: [] }, index);
  const usable = model.usableBy('new');
  const refs = usable.length > 0 ? edit.refs.map((n) => usable[n % usable.length]) : [];
  const step = model.steps.get('new')!;
  step.refs = refs;
  const text = model.expectedText(step);
  const body = edit.branching ? { app_uid: 'kit', action_key: 'check', config: { value: text } } : { app_uid: 'kit', action_key: 'echo', config: { message: text } };
  const res = await kit.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ ...body, ...placement });
  if (res.status !== 201) throw new Error(`insert ${JSON.stringify(edit)} -> ${res.status} ${JSON.stringify(res.body)}`);
  model.rename('new', res.body.data.uuid);
}

async function remove(flowUuid: string, model: FlowModel, edit: Extract<Edit, { op: 'delete' }>): Promise<void> {
  const actions = model.flat().slice(1);
  if (actions.length === 0) return;
  const target = actions[edit.target % actions.length];
  await kit.api.delete(`/api/v1/flow/${flowUuid}/steps/${target}`).expect(200);
  model.remove(target);
}

/** The server's flow must be the model's: same order, positions 1..N, each reference on its step, dangling ones reported. */
function expectSameAsModel(flow: Json, model: FlowModel): void {
  const flat = model.flat();
  expect(flow.steps.map((step: Json) => step.uuid)).toEqual(flat);
  expect(flow.steps.map((step: Json) => step.position)).toEqual(flat.map((_, i) => i + 1));
  for (const step of flow.steps.slice(1)) {
    const modelled = model.steps.get(step.uuid)!;
    const member = modelled.branching ? 'value' : 'message';
    expect([step.uuid, step.parent_step_uuid, step.branch_key, step.config[member]]).toEqual([step.uuid, modelled.parent, modelled.branch, model.expectedText(modelled)]);
    const dangling = modelled.refs.some((ref) => !model.steps.has(ref));
    expect([step.uuid, step.status, step.status_message]).toEqual(dangling ? [step.uuid, 'draft', `config.${member} refers to a deleted step`] : [step.uuid, 'ready', null]);
  }
}

it('random inserts and deletes keep positions 1..N and every reference on the step it was written against', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(editArb, { minLength: 10, maxLength: 40, size: 'max' }), async (edits) => {
      const { flow, trigger } = await flowWithTrigger(kit.api, 'property');
      const model = new FlowModel(trigger.uuid);
      for (const edit of edits) {
        if (edit.op === 'insert') await insert(flow.uuid, model, edit);
        else await remove(flow.uuid, model, edit);
        expectSameAsModel(await readFlow(kit.api, flow.uuid), model);
      }
    }),
    { numRuns: 25 },
  );
}, 120_000);
