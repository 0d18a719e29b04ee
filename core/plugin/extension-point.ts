/**
 * Extension points only add. A plugin that owns a point lists it in `provides`;
 * other plugins list `point.add(item)` in `contributes`. The kernel collects every
 * contribution before any plugin's `init` runs, so the owner sees all of them
 * regardless of load order. A `single` point is a slot (the LLM provider, say):
 * a second contribution is a boot error.
 */
export interface ExtensionPoint<T> {
  readonly id: string;
  readonly single: boolean;
  /** Items with the same key are refused at boot (two apps with one uid, say). */
  readonly keyOf?: (item: T) => string;
  readonly $$point: 'switchboard.extension-point';
  add(item: T): Contribution<T>;
}

export interface Contribution<T> {
  readonly point: ExtensionPoint<T>;
  readonly item: T;
}

export interface ExtensionPointOptions<T> {
  id: string;
  single?: boolean;
  keyOf?: (item: T) => string;
}

export function createExtensionPoint<T>(options: ExtensionPointOptions<T>): ExtensionPoint<T> {
  const point: ExtensionPoint<T> = {
    id: options.id,
    single: options.single ?? false,
    keyOf: options.keyOf,
    $$point: 'switchboard.extension-point',
    add: (item: T) => ({ point, item }),
  };
  return point;
}

/** What a plugin's `init` reads its own points' contributions from. */
export interface ExtensionRegistry {
  /** Every item contributed to a point, in plugin load order. */
  items<T>(point: ExtensionPoint<T>): readonly T[];
  /** The one item of a single slot, or undefined when nobody filled it. */
  get<T>(point: ExtensionPoint<T>): T | undefined;
}
