const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** `config.connection_uuid` of an agent channel, when it is a uuid (anything else names no connection). */
export function connectionUuidOf(config: unknown): string | null {
  const value = (config as { connection_uuid?: unknown } | null)?.connection_uuid;
  return isUuid(value) ? value.toLowerCase() : null;
}
