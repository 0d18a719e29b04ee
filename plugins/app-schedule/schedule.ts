import { CronExpressionParser } from 'cron-parser';
import type { FieldErrors } from '../../core';

/**
 * When a schedule's next tick is due. Ticks are fired by delayed bus messages: each tick
 * names its time, and the worker that fires it publishes the next one (see tick-consumer.ts).
 */

export const EVERY_UNITS = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

export interface EveryConfig {
  amount: number;
  unit: keyof typeof EVERY_UNITS;
}

export interface CronConfig {
  expression: string;
  timezone?: string;
}

export type ScheduleKey = 'every' | 'cron';

/**
 * The first tick after `now` on the grid `from + k * interval`. Ticks missed while no
 * worker ran are not made up one by one: the late tick fires once and the next one is
 * the first grid point still ahead.
 */
function nextEvery(config: EveryConfig, from: Date, now: Date): Date {
  const interval = config.amount * EVERY_UNITS[config.unit];
  const periods = Math.max(1, Math.floor((now.getTime() - from.getTime()) / interval) + 1);
  return new Date(from.getTime() + periods * interval);
}

/** The first occurrence after both `from` and `now`, in the schedule's time zone (so `0 9 * * *` stays at 9:00 local across DST). */
function nextCron(config: CronConfig, from: Date, now: Date): Date {
  const after = from > now ? from : now;
  return CronExpressionParser.parse(config.expression, { tz: config.timezone ?? 'UTC', currentDate: after }).next().toDate();
}

/** The tick after `from` (the previous tick, or the deploy time) that is still ahead of `now`. */
export function nextTick(key: ScheduleKey, config: Record<string, unknown>, from: Date, now = new Date()): Date {
  return key === 'every' ? nextEvery(config as unknown as EveryConfig, from, now) : nextCron(config as unknown as CronConfig, from, now);
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * What the input schema cannot check of a cron schedule: that the time zone exists and
 * that the expression parses and ever fires. Paths as in the step (`config.expression`).
 */
export function cronProblems(config: CronConfig): FieldErrors | null {
  const timezone = config.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) return { 'config.timezone': [`"${timezone}" is not an IANA time zone (e.g. Europe/Madrid)`] };
  try {
    CronExpressionParser.parse(config.expression, { tz: timezone }).next();
    return null;
  } catch (error) {
    return { 'config.expression': [`is not a valid cron expression: ${(error as Error).message}`] };
  }
}
