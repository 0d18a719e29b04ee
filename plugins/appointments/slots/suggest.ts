import type { Slot } from './types';
import { addDays, isoWeekdayIndex, localDateTimeOf } from './zone-time';

export interface SuggestRules {
  /** At most this many alternatives. */
  count: number;
  /** `nearest`: closest to the wanted start first (before or after); `earliest`: earliest start first. Anything else counts as `nearest`. */
  priority: string;
  /** Slots on the wanted local date come first. */
  preferSameDay: boolean;
  /** Slots on other dates at the wanted local time (same HH:MM) come first (after the same day's, when both are set). */
  preferSameTimeSlot: boolean;
  /** false: leave out the other days of the wanted time's week (see suggestSlots). */
  includeSameWeek: boolean;
}

/**
 * The alternatives offered when the wanted time is taken, picked from `free` (the free
 * slots of a search, any order) and worked out in `timezone` (the schedule's).
 *
 * - `includeSameWeek: false` leaves out the slots on the other days of the wanted time's
 *   week (Monday to Sunday, local dates): what is left is the wanted day itself and the
 *   other weeks. It is for someone who asked for a day and, failing that day, wants a
 *   similar moment in another week rather than two days later.
 * - Then the slots are ranked in tiers: first the wanted local date's when
 *   `preferSameDay`, then, when `preferSameTimeSlot`, those on other dates whose local
 *   start reads the wanted HH:MM, then the rest.
 * - Within a tier, `earliest` orders by start, anything else (`nearest`) by the distance
 *   |start - wanted| in real time; ties go to the earlier start.
 *
 * Returns at most `count` slots (none when `count` < 1).
 */
export function suggestSlots(free: Slot[], wanted: { start: Date }, rules: SuggestRules, timezone: string): Slot[] {
  const count = Math.floor(rules.count);
  if (!(count >= 1)) return [];
  const wantedAt = wanted.start.getTime();
  const wantedLocal = localDateTimeOf(wanted.start, timezone);
  const wantedDate = wantedLocal.slice(0, 10);
  const wantedClock = wantedLocal.slice(11);
  const wantedWeek = mondayOf(wantedDate);
  const byDistance = rules.priority !== 'earliest';

  const ranked: Array<{ slot: Slot; tier: number; key: number; start: number }> = [];
  for (const slot of free) {
    const local = localDateTimeOf(slot.start, timezone);
    const date = local.slice(0, 10);
    const sameDay = date === wantedDate;
    if (!rules.includeSameWeek && !sameDay && mondayOf(date) === wantedWeek) continue;
    const sameClock = !sameDay && local.slice(11) === wantedClock;
    const tier = rules.preferSameDay && sameDay ? 0 : rules.preferSameTimeSlot && sameClock ? 1 : 2;
    const start = slot.start.getTime();
    ranked.push({ slot, tier, key: byDistance ? Math.abs(start - wantedAt) : start, start });
  }
  ranked.sort((a, b) => a.tier - b.tier || a.key - b.key || a.start - b.start);
  return ranked.slice(0, count).map((entry) => entry.slot);
}

/** The local date of the Monday that starts the week of `date`. */
function mondayOf(date: string): string {
  return addDays(date, -isoWeekdayIndex(date));
}
