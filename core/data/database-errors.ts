import { ConnectionException } from '@mikro-orm/core';

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /connection.*closed/i, /Client has encountered a connection error/i];

/** True when an error means "the database cannot be reached", which we answer with 503, not 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: any = error, depth = 0; current && depth < 5; current = current.cause, depth++) {
    if (current instanceof ConnectionException) return true;
    if (typeof current.code === 'string' && (UNAVAILABLE_CODES.has(current.code) || current.code.startsWith('08'))) return true;
    if (typeof current.message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(current.message))) return true;
    if (Array.isArray(current.errors) && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
