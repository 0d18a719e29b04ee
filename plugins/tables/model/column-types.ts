import { isHttpUrl } from '../../../core';

/**
 * The column types of a table and what each accepts. Two ways in: `checkValue` for
 * JSON values sent to the API (a number must be a JSON number), `parseCell` for text
 * read from an import (a number is digits in a string). Both normalise: a date-time
 * is stored as ISO 8601 UTC, a date alone as `YYYY-MM-DD`. `null` empties any cell.
 */
export const COLUMN_TYPES = ['text', 'number', 'date', 'boolean', 'json', 'url'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const isColumnType = (value: unknown): value is ColumnType => (COLUMN_TYPES as readonly unknown[]).includes(value);

export type CheckedValue = { ok: true; value: unknown } | { ok: false; message: string };

const ok = (value: unknown): CheckedValue => ({ ok: true, value });
const bad = (message: string): CheckedValue => ({ ok: false, message });

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 date or date-time, normalised; undefined when it is not one (or names a day that does not exist). */
export function normaliseDate(text: string): string | undefined {
  const trimmed = text.trim();
  const day = DATE_ONLY.exec(trimmed);
  if (day) {
    const [, y, m, d] = day.map(Number);
    const date = new Date(Date.UTC(y, m - 1, d));
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? trimmed : undefined;
  }
  const moment = DATE_TIME.exec(trimmed);
  if (!moment) return undefined;
  const [, y, m, d, hh, mm, ss] = moment;
  if (Number(m) < 1 || Number(m) > 12 || Number(d) < 1 || Number(d) > 31 || Number(hh) > 23 || Number(mm) > 59 || Number(ss ?? 0) > 59) return undefined;
  // Without a zone a date-time is read as UTC, so the same text means the same instant on every server.
  const zoned = moment[7] ? trimmed.replace(' ', 'T') : `${trimmed.replace(' ', 'T')}Z`;
  const date = new Date(zoned);
  if (Number.isNaN(date.getTime())) return undefined;
  const check = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (check.getUTCMonth() !== Number(m) - 1) return undefined;
  return date.toISOString();
}

/** A JSON value sent to the API for a column of `type`. */
export function checkValue(type: ColumnType, value: unknown): CheckedValue {
  if (value === null) return ok(null);
  switch (type) {
    case 'text':
      return typeof value === 'string' ? ok(value) : bad('must be a string');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? ok(value) : bad('must be a finite number');
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : bad('must be true or false');
    case 'date': {
      const date = typeof value === 'string' ? normaliseDate(value) : undefined;
      return date ? ok(date) : bad('must be an ISO 8601 date or date-time');
    }
    case 'url':
      return typeof value === 'string' && isHttpUrl(value) ? ok(value) : bad('must be an http(s) URL');
    case 'json':
      return value === undefined ? bad('must be a JSON value') : ok(value);
  }
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A cell of imported text for a column of `type`; an empty cell is null. */
export function parseCell(type: ColumnType, raw: string): CheckedValue {
  const text = raw.trim();
  if (text === '') return ok(null);
  switch (type) {
    case 'text':
      return ok(raw);
    case 'number': {
      const value = NUMBER.test(text) ? Number(text) : NaN;
      return Number.isFinite(value) ? ok(value) : bad(`"${clip(text)}" is not a number`);
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return ok(true);
      if (FALSE_WORDS.has(word)) return ok(false);
      return bad(`"${clip(text)}" is not true or false`);
    }
    case 'date': {
      const date = normaliseDate(text);
      return date ? ok(date) : bad(`"${clip(text)}" is not an ISO 8601 date`);
    }
    case 'url':
      return isHttpUrl(text) ? ok(text) : bad(`"${clip(text)}" is not an http(s) URL`);
    case 'json':
      try {
        return ok(JSON.parse(text));
      } catch {
        return bad(`"${clip(text)}" is not JSON`);
      }
  }
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 37)}...` : text);

/**
 * The type imported text suggests: the narrowest of number, date, boolean, url that
 * every non-empty sample fits, else text. `0`/`1` alone read as numbers, not booleans.
 */
export function inferColumnType(samples: Iterable<string>): ColumnType {
  const candidates = new Set<ColumnType>(['number', 'date', 'boolean', 'url']);
  let seen = 0;
  for (const raw of samples) {
    const text = raw.trim();
    if (text === '') continue;
    seen++;
    if (candidates.has('number') && !NUMBER.test(text)) candidates.delete('number');
    if (candidates.has('date') && !normaliseDate(text)) candidates.delete('date');
    if (candidates.has('boolean') && !/^(true|false|yes|no)$/i.test(text)) candidates.delete('boolean');
    if (candidates.has('url') && !isHttpUrl(text)) candidates.delete('url');
    if (candidates.size === 0) return 'text';
  }
  if (seen === 0) return 'text';
  for (const type of ['number', 'date', 'boolean', 'url'] as const) if (candidates.has(type)) return type;
  return 'text';
}
