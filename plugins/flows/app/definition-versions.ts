import { BootError } from '../../../core';
import type { DefinitionVersion, FlowActionDefinition, FlowTriggerDefinition } from './flow-app';

/**
 * The versions of an app's triggers and actions (DefinitionVersion). An app lists every
 * version it still runs, each a definition of its own with the same key; the catalog
 * keeps them by key, the builder pins a step to one, the engine runs that one.
 */

type Versioned = FlowActionDefinition<any> | FlowTriggerDefinition<any>;

export const versionOf = (definition: DefinitionVersion): number => definition.version ?? 1;

/** Every version of one trigger or action key an app lists. */
export interface Versions<D extends Versioned = Versioned> {
  newest: D;
  byVersion: ReadonlyMap<number, D>;
  /** Ascending. */
  supported: readonly number[];
}

/** What every version of a key must keep: an action's branches (the step tree hangs on them), a trigger's way of firing (one event consumer per trigger key). */
function shapeOf(what: 'trigger' | 'action', definition: Versioned): string {
  if (what === 'action') return `has branches ${(definition as FlowActionDefinition).branches?.join(', ') || '(none)'}`;
  const trigger = definition as FlowTriggerDefinition;
  if (trigger.hook) return 'fires on a hook';
  if (trigger.event) return `fires on events of ${trigger.event.topic}`;
  return trigger.poll ? 'fires on polls' : 'fires from its lifecycle hooks';
}

/**
 * `definitions` by key, refusing at boot a version that is not a whole number from 1, a
 * (key, version) listed twice, a version above 1 without `migrate`, and versions of one
 * key that differ in shape (shapeOf): each error names the app, the key and the version.
 */
export function groupVersions<D extends Versioned>(appUid: string, what: 'trigger' | 'action', definitions: readonly D[]): Map<string, Versions<D>> {
  const byKey = new Map<string, Map<number, D>>();
  for (const definition of definitions) {
    const version = versionOf(definition);
    const named = `flow app "${appUid}": ${what} "${definition.key}" version ${version}`;
    if (!Number.isInteger(version) || version < 1) throw new BootError(`flow app "${appUid}": ${what} "${definition.key}" has version ${version}: a version is a whole number, 1 or more`);
    if (version > 1 && typeof definition.migrate !== 'function') throw new BootError(`${named} has no migrate(): a newer version must say how configs of older versions upgrade`);
    const versions = byKey.get(definition.key) ?? new Map<number, D>();
    if (versions.has(version)) throw new BootError(`flow app "${appUid}" declares ${what} "${definition.key}" version ${version} twice`);
    const [[otherVersion, other] = []] = versions;
    if (other && shapeOf(what, other) !== shapeOf(what, definition)) {
      throw new BootError(`${named} ${shapeOf(what, definition)} but version ${otherVersion} ${shapeOf(what, other)}: versions of one ${what} cannot differ in this (declare a new ${what} key instead)`);
    }
    byKey.set(definition.key, versions.set(version, definition));
  }
  return new Map(
    [...byKey].map(([key, byVersion]) => {
      const supported = [...byVersion.keys()].sort((a, b) => a - b);
      return [key, { newest: byVersion.get(supported[supported.length - 1])!, byVersion, supported }];
    }),
  );
}

/**
 * A step's config of version `from` as the newest version takes it: the `migrate` of each
 * newer version, in turn, each given a copy of the config and the version it is at. Throws
 * what a `migrate` throws, and for an answer that is not a JSON object.
 */
export function upgradeConfig(versions: Versions, config: Record<string, unknown>, from: number): Record<string, unknown> {
  let current = config;
  let at = from;
  for (const version of versions.supported) {
    if (version <= at) continue;
    const next: unknown = versions.byVersion.get(version)!.migrate!(structuredClone(current), at);
    if (next === null || typeof next !== 'object' || Array.isArray(next)) throw new Error(`migrate() of version ${version} answered ${JSON.stringify(next) ?? String(next)}, not a config object`);
    current = JSON.parse(JSON.stringify(next));
    at = version;
  }
  return current;
}

/** Why a step of `version` cannot run or be built on: said the same way by the builder and the engine. */
export function unsupportedVersion(appUid: string, what: 'trigger' | 'action', key: string, version: number, versions: Versions): string {
  return (
    `${what} "${appUid}.${key}" version ${version} is no longer installed (the app supports version${versions.supported.length === 1 ? '' : 's'} ` +
    `${versions.supported.join(', ')}): upgrade the step (POST /api/v1/flow/{uuid}/steps/{step}/upgrade) and redeploy the flow`
  );
}

/** `key` at `version`, else the newest version listed: for code that holds an app's definitions rather than the catalog (the app test kit). */
export function pickVersion<D extends Versioned>(definitions: readonly D[] | undefined, key: string, version?: number): D | undefined {
  let found: D | undefined;
  for (const definition of definitions ?? []) {
    if (definition.key !== key) continue;
    if (version !== undefined ? versionOf(definition) === version : !found || versionOf(definition) > versionOf(found)) found = definition;
  }
  return found;
}
