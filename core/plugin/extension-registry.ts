import { BootError } from '../errors/boot-error';
import type { LoadedPlugin } from './plugin-source';
import type { ExtensionPoint, ExtensionRegistry } from './extension-point';

/**
 * Collects every contribution before any plugin initialises. Refuses a point owned
 * twice, a contribution to a point nobody provides, a single slot filled twice, and
 * two items with one key.
 */
export function collectExtensions(plugins: LoadedPlugin[], corePoints: ExtensionPoint<any>[] = []): ExtensionRegistry {
  const owners = new Map<string, { point: ExtensionPoint<any>; pluginId: string; items: unknown[]; from: string[] }>();
  for (const point of corePoints) owners.set(point.id, { point, pluginId: 'core', items: [], from: [] });
  for (const { plugin } of plugins) {
    for (const point of plugin.provides ?? []) {
      const existing = owners.get(point.id);
      if (existing) throw new BootError(`extension point "${point.id}" is provided by both "${existing.pluginId}" and "${plugin.id}"`);
      owners.set(point.id, { point, pluginId: plugin.id, items: [], from: [] });
    }
  }
  for (const { plugin } of plugins) {
    for (const { point, item } of plugin.contributes ?? []) {
      const owner = owners.get(point.id);
      if (!owner) throw new BootError(`plugin "${plugin.id}" contributes to extension point "${point.id}", which no loaded plugin provides`);
      if (point.single && owner.items.length > 0) {
        throw new BootError(`extension point "${point.id}" takes one implementation; it is set by both "${owner.from[0]}" and "${plugin.id}"`);
      }
      if (point.keyOf) {
        const key = point.keyOf(item);
        const index = owner.items.findIndex((other) => point.keyOf!(other) === key);
        if (index >= 0) throw new BootError(`extension point "${point.id}" has "${key}" twice (from "${owner.from[index]}" and "${plugin.id}")`);
      }
      owner.items.push(item);
      owner.from.push(plugin.id);
    }
  }
  const itemsOf = (point: ExtensionPoint<any>) => {
    const owner = owners.get(point.id);
    if (!owner) throw new Error(`extension point "${point.id}" is not provided by any loaded plugin`);
    return owner.items;
  };
  return {
    items: <T>(point: ExtensionPoint<T>) => itemsOf(point) as T[],
    get: <T>(point: ExtensionPoint<T>) => itemsOf(point)[0] as T | undefined,
  };
}
