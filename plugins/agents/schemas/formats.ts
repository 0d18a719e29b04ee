import { Type, type TSchema } from '../../../core';
import type { TOptional, TProperties } from '@sinclair/typebox';

/**
 * Value formats the agent's fields share. Formats a pattern can express are checked
 * by the schema; catalog membership (language codes, time zones) is checked by
 * validation/agent-rules.ts, which knows the catalogs.
 */

/** A closed group of settings: only the members it names, each described once here. */
export const group = <P extends TProperties>(properties: P, description: string) => Type.Object(properties, { additionalProperties: false, description });

/** A clock time: `9 AM`, `9:30 pm`, or 24-hour `17:00`. */
export const Clock = (description: string) =>
  Type.String({ pattern: '^((0?[1-9]|1[0-2])(:[0-5][0-9])? ?[AaPp][Mm]|([01][0-9]|2[0-3]):[0-5][0-9])$', description, examples: ['9 AM'] });

/** A span of time as `<number>_<unit>`: `2_hours`, `24_hours`, `5_min`. */
export const Span = (description: string) =>
  Type.String({ pattern: '^[0-9]{1,6}_(min|mins|minute|minutes|hour|hours|day|days|week|weeks)$', description, examples: ['2_hours'] });

export const LanguageCode = (description = 'A `code` from `GET /api/v1/language`') => Type.String({ maxLength: 35, description, examples: ['en-US'] });

export const TimeZone = (description = 'An IANA time zone name') => Type.String({ maxLength: 64, description, examples: ['Europe/Madrid'] });

/** Free text of the persona and messages: bounded so one agent stays a sane size. */
export const Text = (description?: string) => Type.String({ maxLength: 20_000, ...(description ? { description } : {}) });

/** A short label, such as an enumerated-looking setting whose values the spec leaves open. */
export const Label = (description: string, example: string) => Type.String({ maxLength: 64, description, examples: [example] });

export const Ratio = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const Count = (description?: string) => Type.Integer({ minimum: 0, maximum: 1_000_000, ...(description ? { description } : {}) });

export const Seconds = (description: string) => Type.Number({ minimum: 0, maximum: 86_400, description });

export const HttpUrl = (description?: string) =>
  Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048, ...(description ? { description } : {}) });

/** An open JSON object whose members the spec leaves to the integration. */
export const OpenObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/**
 * The write form of a settings schema: every member optional, at every depth, so a
 * client sends only what it changes. Arrays keep their item schema as is (an item
 * is sent whole). No `default`s: a member left out must stay absent so it merges.
 */
export function partialDeep<T extends TSchema>(schema: T): TSchema {
  const copy: any = { ...schema };
  if (copy.type === 'object' && copy.properties) {
    delete copy.required;
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([key, inner]) => [key, partialDeep(inner as TSchema)]));
  }
  delete copy.default;
  return copy;
}

/** Every member optional: the partial form of an item for PATCH routes. */
export function allOptional<P extends TProperties>(properties: P): { [K in keyof P]: TOptional<P[K]> } {
  return Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)])) as any;
}
