import { ConnectionException } from '@mikro-orm/core';

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /connection.*closed/i, /Client has encountered a connection error/i];

/**
 * True when an error means "the database cannot be reached", which we answer with 503, not 500.
 * An error about the data sent is never that, even where its SQLSTATE is of class 08:
 * PostgreSQL answers a NUL in statement text with 08P01 and keeps the connection.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (dataErrorOf(error)) return false;
  for (let current: any = error, depth = 0; current && depth < 5; current = current.cause, depth++) {
    if (current instanceof ConnectionException) return true;
    if (typeof current.code === 'string' && (UNAVAILABLE_CODES.has(current.code) || current.code.startsWith('08'))) return true;
    if (typeof current.message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(current.message))) return true;
    if (Array.isArray(current.errors) && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

export interface DataError {
  /** The SQLSTATE: class 22 (data exception), 23 (integrity constraint violation) or 08P01. */
  code: string;
  /** PostgreSQL's primary message, without the detail (which can name tables and rows). */
  message: string;
}

/** The PostgreSQL error about the data a statement carried, if that is what this is. */
export function dataErrorOf(error: unknown): DataError | undefined {
  for (let current: any = error, depth = 0; current && depth < 5; current = current.cause, depth++) {
    const code = current.code;
    if (typeof code === 'string' && /^(2[23][0-9A-Z]{3}|08P01)$/.test(code)) {
      return { code, message: String(current.message ?? '').split('\n')[0] };
    }
  }
  return undefined;
}
