/**
 * Merges `patch` into `base` as far as the schema describes closed objects (groups
 * of settings, `second_message_behavior`, ...), so sending one member changes only
 * that member. Open objects (`normalizers.outbound`, `transfer_config`), arrays and
 * scalars are replaced whole: a client can remove keys from them.
 */
export function mergeBySchema(schema: any, base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (isClosedObject(schema) && isPlainObject(patch)) {
    const out: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) out[key] = mergeBySchema(schema.properties[key], out[key], value);
    return out;
  }
  return patch;
}

function isClosedObject(schema: any): boolean {
  return schema?.type === 'object' && schema.properties !== undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
