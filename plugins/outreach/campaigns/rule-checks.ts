import type { FieldErrors } from '../../../core';

/** Whether the runtime knows this IANA time zone (what the task runner will convert with). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * What the schema cannot say about a rule as it will be stored (after a partial update
 * merged): a known time zone, a non-empty name, a window that starts before it ends.
 * `HH:MM` strings compare as times because both are zero-padded.
 */
export function checkRule(rule: { name: string; timezone: string; startTime: string; endTime: string }): FieldErrors {
  const problems: FieldErrors = {};
  if (rule.name.trim() === '') problems.name = ['must not be empty'];
  if (!isTimeZone(rule.timezone)) problems.timezone = ['must be an IANA time zone, e.g. Europe/Madrid'];
  if (rule.startTime >= rule.endTime) problems.end_time = ['must be later than start_time'];
  return problems;
}
