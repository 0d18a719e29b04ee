import fc from 'fast-check';
import { MAX_RETRY_DELAY_MINUTES, retryDelayMinutes } from '../../../plugins/outreach/tasks/retry-delay';
import { nextAllowedSlot, type RuleWindow } from '../../../plugins/outreach/tasks/rule-window';
import { addDays, instantOf, isTimeZone, isoWeekday, localDateOf, offsetMs } from '../../../plugins/outreach/tasks/zoned-time';

const at = (iso: string) => new Date(iso);
const iso = (date: Date | null) => date?.toISOString() ?? null;

describe('retry delays', () => {
  it('fixed: the interval before every retry', () => {
    const policy = { strategy: 'fixed' as const, intervalMinutes: 60, schedule: null };
    expect([1, 2, 3, 4].map((retry) => retryDelayMinutes(policy, retry))).toEqual([60, 60, 60, 60]);
  });

  it('exponential: interval * 2^(retry-1), capped at 30 days', () => {
    const policy = { strategy: 'exponential' as const, intervalMinutes: 5, schedule: null };
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMinutes(policy, retry))).toEqual([5, 10, 20, 40, 80]);
    expect(retryDelayMinutes({ ...policy, intervalMinutes: 60 }, 20)).toBe(MAX_RETRY_DELAY_MINUTES);
    expect(MAX_RETRY_DELAY_MINUTES).toBe(43_200);
  });

  it('custom: the schedule entry of each retry; past its end, the last entry again', () => {
    const policy = { strategy: 'custom' as const, intervalMinutes: 60, schedule: [1, 15, 240] };
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMinutes(policy, retry))).toEqual([1, 15, 240, 240, 240]);
    expect(retryDelayMinutes({ ...policy, schedule: [] }, 1)).toBe(60);
  });

  it('zero minutes retries at once', () => {
    expect(retryDelayMinutes({ strategy: 'exponential', intervalMinutes: 0, schedule: null }, 3)).toBe(0);
  });
});

describe('zoned time (Intl only)', () => {
  it('knows IANA zones and refuses offsets and junk', () => {
    expect(isTimeZone('Europe/Madrid')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
  });

  it('offsets, local dates and weekdays', () => {
    expect(offsetMs(at('2025-07-01T12:00:00Z').getTime(), 'Europe/Madrid')).toBe(2 * 3600_000);
    expect(offsetMs(at('2025-01-01T12:00:00Z').getTime(), 'Europe/Madrid')).toBe(3600_000);
    expect(offsetMs(at('2025-01-01T12:00:00Z').getTime(), 'Asia/Kolkata')).toBe(5.5 * 3600_000);
    expect(localDateOf(at('2025-03-09T03:00:00Z'), 'America/New_York')).toEqual({ year: 2025, month: 3, day: 8 });
    expect(isoWeekday({ year: 2025, month: 3, day: 9 })).toBe(7);
    expect(isoWeekday({ year: 2025, month: 3, day: 10 })).toBe(1);
    expect(addDays({ year: 2024, month: 12, day: 31 }, 1)).toEqual({ year: 2025, month: 1, day: 1 });
  });

  it('a local time skipped by the spring change moves forward by the gap; one shown twice in autumn is the first', () => {
    // New York, 2025-03-09: 02:00 EST -> 03:00 EDT.
    expect(iso(instantOf({ year: 2025, month: 3, day: 9 }, 2 * 60 + 30, 'America/New_York'))).toBe('2025-03-09T07:30:00.000Z');
    expect(iso(instantOf({ year: 2025, month: 3, day: 9 }, 3 * 60, 'America/New_York'))).toBe('2025-03-09T07:00:00.000Z');
    // New York, 2025-11-02: 01:00-02:00 happens twice (EDT, then EST).
    expect(iso(instantOf({ year: 2025, month: 11, day: 2 }, 60 + 30, 'America/New_York'))).toBe('2025-11-02T05:30:00.000Z');
    // Madrid, 2025-10-26: 02:30 happens twice.
    expect(iso(instantOf({ year: 2025, month: 10, day: 26 }, 2 * 60 + 30, 'Europe/Madrid'))).toBe('2025-10-26T00:30:00.000Z');
  });
});

describe('the next allowed slot of a rule window', () => {
  const officeHours: RuleWindow = { weekdays: [1, 2, 3, 4, 5], startTime: '09:00', endTime: '17:00' };

  it('inside the window: now', () => {
    // Tuesday 2025-06-10 10:00 in Tokyo (UTC+9, no daylight saving) is 01:00Z.
    const now = at('2025-06-10T01:00:00Z');
    expect(nextAllowedSlot(now, officeHours, 'Asia/Tokyo')).toBe(now);
  });

  it('before the window opens: today’s start; after it closes: the next weekday’s (DST-free zones)', () => {
    // Tuesday 07:30 Tokyo -> 09:00 Tokyo = 00:00Z.
    expect(iso(nextAllowedSlot(at('2025-06-09T22:30:00Z'), officeHours, 'Asia/Tokyo'))).toBe('2025-06-10T00:00:00.000Z');
    // Tuesday 17:00 Tokyo (the end is exclusive) -> Wednesday 09:00 Tokyo.
    expect(iso(nextAllowedSlot(at('2025-06-10T08:00:00Z'), officeHours, 'Asia/Tokyo'))).toBe('2025-06-11T00:00:00.000Z');
    // Friday 18:00 in Kolkata (UTC+5:30) -> Monday 09:00 Kolkata = 03:30Z.
    expect(iso(nextAllowedSlot(at('2025-06-13T12:30:00Z'), officeHours, 'Asia/Kolkata'))).toBe('2025-06-16T03:30:00.000Z');
    // The same instant is Friday 12:30 UTC: inside the window in UTC.
    expect(iso(nextAllowedSlot(at('2025-06-13T12:30:00Z'), officeHours, 'UTC'))).toBe('2025-06-13T12:30:00.000Z');
  });

  it('the weekday is the zone’s: Monday morning in Tokyo is still Sunday in UTC', () => {
    // 2025-06-15T23:30Z: Sunday in UTC, Monday 08:30 in Tokyo -> Monday 09:00 Tokyo.
    expect(iso(nextAllowedSlot(at('2025-06-15T23:30:00Z'), officeHours, 'Asia/Tokyo'))).toBe('2025-06-16T00:00:00.000Z');
    expect(iso(nextAllowedSlot(at('2025-06-15T23:30:00Z'), officeHours, 'UTC'))).toBe('2025-06-16T09:00:00.000Z');
  });

  it('across a daylight saving change the window keeps its local hours', () => {
    // Friday 2025-03-07 18:00 EST -> Monday 2025-03-10 09:00 EDT (13:00Z, not 14:00Z).
    expect(iso(nextAllowedSlot(at('2025-03-07T23:00:00Z'), officeHours, 'America/New_York'))).toBe('2025-03-10T13:00:00.000Z');
    // Friday 2025-10-31 18:00 EDT -> Monday 2025-11-03 09:00 EST (14:00Z).
    expect(iso(nextAllowedSlot(at('2025-10-31T22:00:00Z'), officeHours, 'America/New_York'))).toBe('2025-11-03T14:00:00.000Z');
    // Madrid: Saturday 2025-03-29 12:00 CET -> Monday 2025-03-31 09:00 CEST (07:00Z).
    expect(iso(nextAllowedSlot(at('2025-03-29T11:00:00Z'), officeHours, 'Europe/Madrid'))).toBe('2025-03-31T07:00:00.000Z');
  });

  it('a start skipped by the spring change opens after the gap; a window swallowed by it is skipped', () => {
    const night: RuleWindow = { weekdays: [7], startTime: '02:30', endTime: '04:00' };
    // Sunday 2025-03-09 01:00 EST: 02:30 does not exist that night -> 03:30 EDT (07:30Z).
    expect(iso(nextAllowedSlot(at('2025-03-09T06:00:00Z'), night, 'America/New_York'))).toBe('2025-03-09T07:30:00.000Z');
    const swallowed: RuleWindow = { weekdays: [7], startTime: '02:00', endTime: '03:00' };
    // That night the window is empty: next Sunday 02:00 EDT (06:00Z).
    expect(iso(nextAllowedSlot(at('2025-03-09T06:00:00Z'), swallowed, 'America/New_York'))).toBe('2025-03-16T06:00:00.000Z');
  });

  it('overnight windows belong to the day they start on; no weekday means never', () => {
    const nights: RuleWindow = { weekdays: [5], startTime: '22:00', endTime: '06:00' };
    // Saturday 03:00 UTC is inside Friday's night.
    expect(iso(nextAllowedSlot(at('2025-06-14T03:00:00Z'), nights, 'UTC'))).toBe('2025-06-14T03:00:00.000Z');
    // Saturday 07:00 UTC -> next Friday 22:00.
    expect(iso(nextAllowedSlot(at('2025-06-14T07:00:00Z'), nights, 'UTC'))).toBe('2025-06-20T22:00:00.000Z');
    expect(nextAllowedSlot(at('2025-06-14T07:00:00Z'), { ...nights, weekdays: [] }, 'UTC')).toBeNull();
  });

  it('property: the slot is inside the window, not before now, and the minute before it is outside (or before now)', () => {
    const zones = ['UTC', 'Europe/Madrid', 'America/New_York', 'Asia/Tokyo', 'Asia/Kolkata', 'Australia/Sydney', 'America/Sao_Paulo'];
    const hm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    const inside = (instant: Date, window: RuleWindow, zone: string, start: number, end: number) => {
      // Inside when some day's window (today's or yesterday's) holds it.
      const today = localDateOf(instant, zone);
      return [0, -1].some((offset) => {
        const day = addDays(today, offset);
        if (!window.weekdays.includes(isoWeekday(day))) return false;
        const opens = instantOf(day, start, zone).getTime();
        const closes = instantOf(day, end <= start ? end + 1440 : end, zone).getTime();
        return instant.getTime() >= opens && instant.getTime() < closes;
      });
    };
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) }),
        fc.constantFrom(...zones),
        fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 1, max: 1439 }),
        (from, zone, weekdays, start, length) => {
          const end = (start + length) % 1440;
          const window = { weekdays, startTime: hm(start), endTime: hm(end) };
          const now = new Date(Math.floor(from / 60_000) * 60_000);
          const slot = nextAllowedSlot(now, window, zone);
          expect(slot).not.toBeNull();
          expect(slot!.getTime()).toBeGreaterThanOrEqual(now.getTime());
          expect(slot!.getTime() - now.getTime()).toBeLessThanOrEqual(8 * 24 * 3600_000);
          expect(inside(slot!, window, zone, start, end)).toBe(true);
          const before = new Date(slot!.getTime() - 60_000);
          if (before.getTime() >= now.getTime()) expect(inside(before, window, zone, start, end)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
