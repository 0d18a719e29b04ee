import { BootError } from '../errors/boot-error';

export interface OrderablePlugin {
  id: string;
  dependsOn: string[];
  /** Where it came from, for error messages. */
  origin: string;
}

/**
 * Orders plugins so each comes after what it depends on, keeping discovery order
 * otherwise. Refuses duplicates, missing dependencies and cycles, naming the plugins.
 */
export function orderPlugins<P extends OrderablePlugin>(plugins: P[]): P[] {
  const byId = new Map<string, P>();
  for (const plugin of plugins) {
    const existing = byId.get(plugin.id);
    if (existing) {
      throw new BootError(`duplicate plugin id "${plugin.id}": ${existing.origin} and ${plugin.origin}`);
    }
    byId.set(plugin.id, plugin);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependsOn) {
      if (!byId.has(dependency)) {
        throw new BootError(`plugin "${plugin.id}" depends on "${dependency}", which is not installed`);
      }
    }
  }

  const ordered: P[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: P, trail: string[]): void => {
    const seen = state.get(plugin.id);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(plugin.id)), plugin.id];
      throw new BootError(`plugin dependency cycle: ${cycle.join(' -> ')}`);
    }
    state.set(plugin.id, 'visiting');
    for (const dependency of plugin.dependsOn) visit(byId.get(dependency)!, [...trail, plugin.id]);
    state.set(plugin.id, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}
