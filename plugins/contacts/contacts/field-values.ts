import { isHttpUrl } from '../../../core';
import type { ContactFieldType } from '../entities/contact-field.entity';
import { accept, refuse, type Checked } from './checked';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const realDay = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

/**
 * An ISO 8601 date (kept as `YYYY-MM-DD`) or date-time (stored as UTC, read as UTC when
 * it names no zone, so the same text means the same instant on every server).
 */
export function normalizeDate(text: string): string | undefined {
  const trimmed = text.trim();
  const day = DATE_ONLY.exec(trimmed);
  if (day) return realDay(Number(day[1]), Number(day[2]), Number(day[3])) ? trimmed : undefined;
  const moment = DATE_TIME.exec(trimmed);
  if (!moment) return undefined;
  const [, y, m, d, hh, mm, ss] = moment;
  if (!realDay(Number(y), Number(m), Number(d)) || Number(hh) > 23 || Number(mm) > 59 || Number(ss ?? 0) > 59) return undefined;
  const instant = new Date(moment[7] ? trimmed : `${trimmed}Z`);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}

/**
 * How a value arrives: `json` from the contact routes (a number is a JSON number), or
 * `listing` from a listing item, whose values are often text exported from a sheet
 * (`"42"`, `"true"` are then read as a number and a boolean too).
 */
export type FieldValueReading = 'json' | 'listing';

/** A non-null custom field value checked against its field's type, normalised (dates as ISO 8601). */
export function checkFieldValue(type: ContactFieldType, value: unknown, reading: FieldValueReading): Checked<unknown> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  switch (type) {
    case 'text':
      if (typeof value === 'string') return accept(value);
      // A listing's new keys become text fields: its scalar values are written as text rather than refused.
      if (reading === 'listing' && (typeof value === 'number' || typeof value === 'boolean')) return accept(String(value));
      return refuse('must be a string');
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return accept(value);
      if (reading === 'listing' && text !== undefined && NUMBER_TEXT.test(text) && Number.isFinite(Number(text))) return accept(Number(text));
      return refuse('must be a finite number');
    case 'boolean':
      if (typeof value === 'boolean') return accept(value);
      if (reading === 'listing' && (text === 'true' || text === 'false')) return accept(text === 'true');
      return refuse('must be true or false');
    case 'date': {
      const date = text !== undefined ? normalizeDate(text) : undefined;
      return date ? accept(date) : refuse('must be an ISO 8601 date (YYYY-MM-DD) or date-time');
    }
    case 'url':
      return text !== undefined && isHttpUrl(text) ? accept(text) : refuse('must be an http or https URL');
    case 'json':
      return accept(value);
  }
}
