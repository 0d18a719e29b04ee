import fs from 'node:fs';
import path from 'node:path';
import convict from 'convict';
import { BootError } from '../errors/boot-error';
import { coreConfigSchema, type CoreConfig } from './config-schema';
import type { ConvictSchema } from './convict-schema';

export interface LoadConfigOptions {
  /** Each loaded plugin's slice, keyed by plugin id. */
  pluginSlices?: Record<string, ConvictSchema>;
  /** Folder holding default.json and $NODE_ENV.json. */
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over every source (the test kit uses this). */
  overrides?: Record<string, unknown>;
  /** Tolerate keys of plugins not known yet (the first, core-only read at boot). */
  lenient?: boolean;
}

export interface LoadedConfig {
  core: CoreConfig;
  /** The whole validated config (core keys at the top, plugin slices under their id). */
  store: convict.Config<any>;
  /** Any key by its dotted path, e.g. `flows.maxStepsPerFlow`. */
  get(key: string): any;
  /** The effective config as JSON, secrets redacted. */
  redacted(): Record<string, unknown>;
}

/**
 * Sources, weakest first: schema defaults, config/default.json, config/$NODE_ENV.json,
 * CONFIG_FILE, environment variables, overrides. Validation is strict: an unknown key
 * or an invalid value stops boot with a message naming the key.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const schema: ConvictSchema = { ...coreConfigSchema };
  for (const [pluginId, slice] of Object.entries(options.pluginSlices ?? {})) {
    if (pluginId in coreConfigSchema) throw new BootError(`plugin id "${pluginId}" clashes with a core config key`);
    schema[pluginId] = slice;
  }

  let store: convict.Config<any>;
  // convict's typings recurse through the schema; the kernel reads it by string keys.
  try {
    store = convict(schema, { env, args: [] });
    const configDir = options.configDir ?? path.resolve(__dirname, '..', '..', 'config');
    const files = [path.join(configDir, 'default.json')];
    if (env.NODE_ENV) files.push(path.join(configDir, `${env.NODE_ENV}.json`));
    for (const file of files) if (fs.existsSync(file)) store.loadFile(file);
    if (env.CONFIG_FILE) {
      if (!fs.existsSync(env.CONFIG_FILE)) throw new Error(`CONFIG_FILE ${env.CONFIG_FILE} does not exist`);
      store.loadFile(env.CONFIG_FILE);
    }
    for (const [key, value] of Object.entries(flatten(options.overrides ?? {}))) (store as unknown as { set(k: string, v: unknown): void }).set(key, value);
    store.validate(options.lenient ? { allowed: 'warn', output: () => {} } : { allowed: 'strict' });
  } catch (error) {
    throw new BootError(`invalid configuration: ${(error as Error).message}`);
  }

  return {
    core: pickCore(store),
    store,
    get: (key) => (store as unknown as { get(k: string): unknown }).get(key),
    redacted: () => JSON.parse(store.toString()),
  };
}

function pickCore(store: convict.Config<any>): CoreConfig {
  const core: Record<string, unknown> = {};
  for (const key of Object.keys(coreConfigSchema)) core[key] = (store as unknown as { get(k: string): unknown }).get(key);
  return core as unknown as CoreConfig;
}

/** `{flows: {maxSteps: 3}}` -> `{"flows.maxSteps": 3}`, so overrides can be nested objects. */
function flatten(value: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) Object.assign(out, flatten(inner as Record<string, unknown>, full));
    else out[full] = inner;
  }
  return out;
}
