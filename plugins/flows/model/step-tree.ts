/**
 * A flow's steps form a tree: the top-level chain (the trigger first), and under each
 * branching step one ordered chain per branch key. Positions are the 1-based order of
 * the depth-first walk, children right after their parent, branches in the action's
 * declared order (`true` before `false`). Nothing here is stored: positions follow from
 * `(parent, branch, ord)`, so renumbering after an insert or delete is free.
 */
export interface TreeStep {
  uuid: string;
  kind: 'trigger' | 'action';
  parentStepUuid: string | null;
  branchKey: string | null;
  ord: number;
}

/** The branch keys of a step in display order; empty for a step that does not branch. */
export type BranchOrder<T> = (step: T) => readonly string[];

const siblingKey = (parent: string | null, branch: string | null) => `${parent ?? ''}/${branch ?? ''}`;

function groups<T extends TreeStep>(steps: readonly T[]): Map<string, T[]> {
  const byGroup = new Map<string, T[]>();
  for (const step of steps) {
    const key = siblingKey(step.parentStepUuid, step.branchKey);
    let group = byGroup.get(key);
    if (!group) byGroup.set(key, (group = []));
    group.push(step);
  }
  for (const group of byGroup.values()) group.sort((a, b) => (a.kind === b.kind ? a.ord - b.ord : a.kind === 'trigger' ? -1 : 1));
  return byGroup;
}

/** A step's branch keys in order: the declared ones, then any others alphabetically (from an app that changed its branches). */
function branchKeysOf<T extends TreeStep>(step: T, order: BranchOrder<T>, byGroup: Map<string, T[]>): string[] {
  const declared = [...order(step)];
  const present = [...byGroup.keys()].filter((key) => key.startsWith(`${step.uuid}/`)).map((key) => key.slice(step.uuid.length + 1));
  return [...declared, ...present.filter((key) => !declared.includes(key)).sort()];
}

/** The steps in flow order: what `steps` lists and what `position` counts. */
export function flatten<T extends TreeStep>(steps: readonly T[], order: BranchOrder<T>): T[] {
  const byGroup = groups(steps);
  const out: T[] = [];
  const walk = (group: T[] | undefined) => {
    for (const step of group ?? []) {
      out.push(step);
      for (const branch of branchKeysOf(step, order, byGroup)) walk(byGroup.get(siblingKey(step.uuid, branch)));
    }
  };
  walk(byGroup.get(siblingKey(null, null)));
  return out;
}

/** `uuid -> position` (1-based). */
export function positions<T extends TreeStep>(flat: readonly T[]): Map<string, number> {
  return new Map(flat.map((step, index) => [step.uuid, index + 1]));
}

export interface StepLinks {
  next: string | null;
  branches?: Record<string, string | null>;
}

/** What runs after each step: its successor in its chain, or, at a chain's end, whatever follows the branching step above it. */
export function links<T extends TreeStep>(steps: readonly T[], order: BranchOrder<T>): Map<string, StepLinks> {
  const byGroup = groups(steps);
  const out = new Map<string, StepLinks>();
  const walk = (group: T[] | undefined, after: string | null) => {
    const chain = group ?? [];
    chain.forEach((step, index) => {
      const next = chain[index + 1]?.uuid ?? after;
      const keys = order(step);
      if (keys.length === 0) {
        out.set(step.uuid, { next });
        return;
      }
      const branches: Record<string, string | null> = {};
      for (const branch of keys) {
        const children = byGroup.get(siblingKey(step.uuid, branch));
        branches[branch] = children?.[0]?.uuid ?? null;
        walk(children, next);
      }
      out.set(step.uuid, { next, branches });
    });
  };
  walk(byGroup.get(siblingKey(null, null)), null);
  return out;
}

/** `parent -> branch` for every branching step above `step` (its own branch included). */
function branchPath<T extends TreeStep>(step: T, byUuid: ReadonlyMap<string, T>): Map<string, string | null> {
  const path = new Map<string, string | null>();
  let current: T | undefined = step;
  while (current?.parentStepUuid) {
    path.set(current.parentStepUuid, current.branchKey);
    current = byUuid.get(current.parentStepUuid);
  }
  return path;
}

/**
 * Whether `referrer` may use `referent`'s output: the referent comes earlier and is not
 * in another branch of a branching step above the referrer (that branch never runs
 * when the referrer does). A step after a whole branching step may use either branch.
 */
export function mayReference<T extends TreeStep>(referrer: T, referent: T, positionOf: ReadonlyMap<string, number>, byUuid: ReadonlyMap<string, T>): boolean {
  if ((positionOf.get(referent.uuid) ?? Infinity) >= (positionOf.get(referrer.uuid) ?? 0)) return false;
  const referrerPath = branchPath(referrer, byUuid);
  for (const [parent, branch] of branchPath(referent, byUuid)) {
    if (referrerPath.has(parent) && referrerPath.get(parent) !== branch) return false;
  }
  return true;
}

/** Every step under `root` (children, their children, ...), not `root` itself. */
export function descendants<T extends TreeStep>(root: string, steps: readonly T[]): T[] {
  const out: T[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const step of steps) {
      if (step.parentStepUuid === parent) {
        out.push(step);
        frontier.push(step.uuid);
      }
    }
  }
  return out;
}
