import { ValidationError } from '../../../core';

/**
 * The `from`/`to` filter of the conversation and session lists as a condition on
 * `started_at`: `from <= started_at < to` (half-open, as the message export's range),
 * so consecutive ranges never count a row twice. The schema has already checked both
 * are ISO 8601 date-times; an empty range is a client's mistake worth a 422, not an
 * empty page.
 */
export function startedBetween(query: { from?: string; to?: string }): { startedAt?: { $gte?: Date; $lt?: Date } } {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  const problems: Record<string, string[]> = {};
  if (from && Number.isNaN(from.getTime())) problems.from = ['must be an ISO 8601 date-time'];
  if (to && Number.isNaN(to.getTime())) problems.to = ['must be an ISO 8601 date-time'];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  if (from && to && from.getTime() >= to.getTime()) throw ValidationError.field('to', 'must be later than `from`');
  if (!from && !to) return {};
  return { startedAt: { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) } };
}
