import type { Contribution, ExtensionPoint } from './extension-point';
import { createServiceRef, type ServiceRef } from './service-ref';

/** Services by name, as a plugin's `deps` names them. */
export type DepsMap = Record<string, ServiceRef<unknown>>;

/** The services of a deps map, as code receives them. */
export type ResolvedDeps<D extends DepsMap> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

/**
 * The services that contributed items (an outreach task executor, say) name in their own
 * `deps`, handed over by the plugin that contributes each. Items are contributed before
 * any plugin's init, so the owner of the extension point reads these when an item runs,
 * not when it collects the items. One per kernel (a service), so two kernels in one
 * process (tests) never share them.
 */
export class ContributedDeps<Item extends object> {
  readonly #provided = new Map<Item, Readonly<Record<string, unknown>>>();

  /** `howToContribute` ends the error of an item whose deps never came: the helper that contributes items of this point. */
  constructor(
    private readonly describe: (item: Item) => string,
    private readonly howToContribute = "the point's contribute helper",
  ) {}

  /** Refuses a second hand-over, and one missing a service the item names in its `deps`. */
  provide(item: Item, services: Record<string, unknown>): void {
    if (this.#provided.has(item)) throw new Error(`${this.describe(item)}: its deps were provided twice`);
    const absent = namedDeps(item).filter((name) => services[name] === undefined);
    if (absent.length > 0) throw new Error(`${this.describe(item)}: deps ${absent.join(', ')} were not provided`);
    this.#provided.set(item, Object.freeze({ ...services }));
  }

  /** What the item's code receives as its deps; throws when its plugin never handed them over. */
  of(item: Item): Readonly<Record<string, unknown>> {
    const services = this.#provided.get(item);
    if (!services) throw new Error(`${this.describe(item)} names deps its plugin never provided: contribute it with ${this.howToContribute}`);
    return services;
  }

  /** Those of `items` that name deps nobody handed over, described: for the point's owner to refuse to start with any (their code would fail at its first use). */
  missing(items: readonly Item[]): string[] {
    return items.filter((item) => namedDeps(item).length > 0 && !this.#provided.has(item)).map(this.describe);
  }
}

/** The names in an item's `deps`, when it has any. */
const namedDeps = (item: object): string[] => Object.keys((item as { deps?: DepsMap }).deps ?? {});

/** The name the registry takes among the contributing plugin's deps. */
const REGISTRY = 'contributedDeps';

/**
 * The `definePlugin` members of a plugin that contributes `item` to `point` when the item
 * names deps: the kernel resolves them as the plugin's own (so a service of a plugin
 * missing from `dependsOn` is a boot error, as for any dep) and the plugin's init hands
 * them to `registry`, where the point's owner finds them.
 */
export function contributeWithDeps<Item extends { deps?: DepsMap }>(point: ExtensionPoint<Item>, item: Item, registry: ServiceRef<ContributedDeps<Item>>) {
  const deps = (item.deps ?? {}) as DepsMap;
  if (REGISTRY in deps) throw new Error(`a contributed item's dep may not be named "${REGISTRY}"`);
  const contribution: Contribution<Item> = point.add(item);
  return {
    contributes: [contribution],
    deps: { ...deps, [REGISTRY]: registry },
    init(resolved: Record<string, unknown>): void {
      const { [REGISTRY]: held, ...services } = resolved;
      (held as ContributedDeps<Item>).provide(item, services);
    },
  };
}

/** A registry's ref, named for its point. */
export const contributedDepsRef = <Item extends object>(id: string): ServiceRef<ContributedDeps<Item>> => createServiceRef<ContributedDeps<Item>>(id);
