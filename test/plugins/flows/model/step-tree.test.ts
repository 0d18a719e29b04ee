import { descendants, flatten, links, mayReference, positions, type TreeStep } from '../../../../plugins/flows/model/step-tree';

const step = (uuid: string, ord: number, parent: string | null = null, branch: string | null = null, kind: 'trigger' | 'action' = 'action'): TreeStep => ({
  uuid,
  kind,
  parentStepUuid: parent,
  branchKey: branch,
  ord,
});

// trigger, if (true: t1, t2; false: f1), after
const steps = [step('after', 3), step('f1', 1, 'if', 'false'), step('t2', 2, 'if', 'true'), step('if', 2), step('t1', 1, 'if', 'true'), step('trigger', 0, null, null, 'trigger')];
const branchOrder = (s: TreeStep) => (s.uuid === 'if' ? ['true', 'false'] : []);

describe('the step tree', () => {
  it('lists steps depth first: children right after their parent, true before false', () => {
    expect(flatten(steps, branchOrder).map((s) => s.uuid)).toEqual(['trigger', 'if', 't1', 't2', 'f1', 'after']);
  });

  it('keeps the trigger first whatever its ord', () => {
    const flat = flatten([step('a', 0), step('trigger', 5, null, null, 'trigger')], () => []);
    expect(flat.map((s) => s.uuid)).toEqual(['trigger', 'a']);
  });

  it('links each step to what runs next; a branch ends where its parent goes next', () => {
    const linked = links(steps, branchOrder);
    expect(linked.get('trigger')).toEqual({ next: 'if' });
    expect(linked.get('if')).toEqual({ next: 'after', branches: { true: 't1', false: 'f1' } });
    expect(linked.get('t1')).toEqual({ next: 't2' });
    expect(linked.get('t2')).toEqual({ next: 'after' });
    expect(linked.get('f1')).toEqual({ next: 'after' });
    expect(linked.get('after')).toEqual({ next: null });
  });

  it('gives an empty branch no first step', () => {
    const linked = links([step('trigger', 0, null, null, 'trigger'), step('if', 1)], branchOrder);
    expect(linked.get('if')).toEqual({ next: null, branches: { true: null, false: null } });
  });

  it('lets a step use earlier steps, but not the other branch of a branching step above it', () => {
    const flat = flatten(steps, branchOrder);
    const pos = positions(flat);
    const byUuid = new Map(steps.map((s) => [s.uuid, s]));
    const may = (referrer: string, referent: string) => mayReference(byUuid.get(referrer)!, byUuid.get(referent)!, pos, byUuid);
    expect(may('t2', 't1')).toBe(true);
    expect(may('f1', 't1')).toBe(false); // the true branch never ran when the false one runs
    expect(may('f1', 'if')).toBe(true);
    expect(may('after', 't2')).toBe(true); // after the whole if, either branch may have run
    expect(may('t1', 't2')).toBe(false); // later
    expect(may('t1', 't1')).toBe(false); // itself
  });

  it('finds every step under a branching step', () => {
    expect(descendants('if', steps).map((s) => s.uuid).sort()).toEqual(['f1', 't1', 't2']);
  });
});
