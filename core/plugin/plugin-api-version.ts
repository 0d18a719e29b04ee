import { BootError } from '../errors/boot-error';

/**
 * The version of the plugin API: what `switchboard/core` and `switchboard/flows` (and
 * their testing entries) export. A change that removes or alters something a plugin may
 * use raises the major; an addition raises the minor. A plugin states the version it was
 * built for (`apiVersion`), and loads when the majors are equal and its minor is not
 * newer than this one.
 */
export const PLUGIN_API_VERSION = '1.4.0';

const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})(?:\.(0|[1-9]\d{0,5}))?$/;

/** `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`; the patch never matters to compatibility. */
export function parseApiVersion(text: string): { major: number; minor: number } | null {
  const match = VERSION.exec(text);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : null;
}

/**
 * Refuses a plugin built for another plugin API, naming it, where it came from and both
 * versions. `declared` is undefined for a plugin that states none (only those shipped
 * with the installation may).
 */
export function checkApiVersion(plugin: { id: string; origin: string; apiVersion?: string }, core = PLUGIN_API_VERSION): void {
  const ours = parseApiVersion(core)!;
  const named = `plugin "${plugin.id}" (${plugin.origin})`;
  if (plugin.apiVersion === undefined) {
    throw new BootError(`${named} does not say which plugin API it was built for: add "apiVersion": "${ours.major}.${ours.minor}" to its manifest (this Switchboard's plugin API is ${core})`);
  }
  const theirs = parseApiVersion(plugin.apiVersion);
  if (!theirs) throw new BootError(`${named} has "apiVersion": ${JSON.stringify(plugin.apiVersion)}, which is not a version such as "1.0"`);
  if (theirs.major !== ours.major) {
    throw new BootError(`${named} was built for plugin API ${plugin.apiVersion}, but this Switchboard's plugin API is ${core}: the major versions differ`);
  }
  if (theirs.minor > ours.minor) {
    throw new BootError(`${named} was built for plugin API ${plugin.apiVersion}, newer than this Switchboard's ${core}: upgrade Switchboard or use an older release of the plugin`);
  }
}
