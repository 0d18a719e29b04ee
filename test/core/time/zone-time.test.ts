import {
  addCivilDays,
  addDays,
  civilWeekdayIndex,
  clockMinutes,
  describeInstant,
  formatOffset,
  isTimeZone,
  isoWeekdayIndex,
  localDateOf,
  localDateTimeOf,
  localDayStart,
  localParts,
  offsetAt,
  offsetMsAt,
  parseDate,
  resolveWallClock,
  wallClockToInstants,
} from '../../../core/time/zone-time';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe('isTimeZone', () => {
  it('knows IANA zones and refuses anything else', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Etc/GMT+1')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    // Node's Intl takes a bare offset as a zone; it has no DST rules, so it is not one.
    expect(isTimeZone('+01:00')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone(42)).toBe(false);
  });
});

describe('wallClockToInstants', () => {
  it('gives one instant on an ordinary day, with a half-hour offset too', () => {
    expect(iso(wallClockToInstants('Asia/Kolkata', '2026-06-15', '09:00'))).toEqual(['2026-06-15T03:30:00.000Z']);
    expect(iso(wallClockToInstants('America/New_York', '2026-06-15', '09:00'))).toEqual(['2026-06-15T13:00:00.000Z']);
    expect(iso(wallClockToInstants('Europe/Berlin', '2026-01-05', '00:00'))).toEqual(['2026-01-04T23:00:00.000Z']);
  });

  it('gives none for a time a spring-forward gap skips', () => {
    // New York, 8 March 2026: 02:00 EST -> 03:00 EDT.
    expect(wallClockToInstants('America/New_York', '2026-03-08', '02:00')).toEqual([]);
    expect(wallClockToInstants('America/New_York', '2026-03-08', '02:59')).toEqual([]);
    expect(iso(wallClockToInstants('America/New_York', '2026-03-08', '01:59'))).toEqual(['2026-03-08T06:59:00.000Z']);
    expect(iso(wallClockToInstants('America/New_York', '2026-03-08', '03:00'))).toEqual(['2026-03-08T07:00:00.000Z']);
    // Berlin, 29 March 2026: 02:00 CET -> 03:00 CEST.
    expect(wallClockToInstants('Europe/Berlin', '2026-03-29', '02:30')).toEqual([]);
    expect(iso(wallClockToInstants('Europe/Berlin', '2026-03-29', '03:00'))).toEqual(['2026-03-29T01:00:00.000Z']);
    // Sydney, 4 October 2026: 02:00 AEST -> 03:00 AEDT.
    expect(wallClockToInstants('Australia/Sydney', '2026-10-04', '02:30')).toEqual([]);
    expect(iso(wallClockToInstants('Australia/Sydney', '2026-10-04', '03:00'))).toEqual(['2026-10-03T16:00:00.000Z']);
    // Lord Howe, 4 October 2026: 02:00 (+10:30) -> 02:30 (+11:00), a half-hour gap.
    expect(wallClockToInstants('Australia/Lord_Howe', '2026-10-04', '02:15')).toEqual([]);
    expect(iso(wallClockToInstants('Australia/Lord_Howe', '2026-10-04', '02:30'))).toEqual(['2026-10-03T15:30:00.000Z']);
  });

  it('gives both instants, earlier first, for a time a fall-back overlap repeats', () => {
    // New York, 1 November 2026: 02:00 EDT -> 01:00 EST.
    expect(iso(wallClockToInstants('America/New_York', '2026-11-01', '01:30'))).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z']);
    expect(iso(wallClockToInstants('America/New_York', '2026-11-01', '02:00'))).toEqual(['2026-11-01T07:00:00.000Z']);
    // Berlin, 25 October 2026: 03:00 CEST -> 02:00 CET.
    expect(iso(wallClockToInstants('Europe/Berlin', '2026-10-25', '02:30'))).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
    // Sydney, 5 April 2026: 03:00 AEDT -> 02:00 AEST.
    expect(iso(wallClockToInstants('Australia/Sydney', '2026-04-05', '02:30'))).toEqual(['2026-04-04T15:30:00.000Z', '2026-04-04T16:30:00.000Z']);
    // Lord Howe, 5 April 2026: 02:00 (+11:00) -> 01:30 (+10:30): only half an hour repeats.
    expect(iso(wallClockToInstants('Australia/Lord_Howe', '2026-04-05', '01:45'))).toEqual(['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z']);
    expect(iso(wallClockToInstants('Australia/Lord_Howe', '2026-04-05', '01:15'))).toEqual(['2026-04-04T14:15:00.000Z']);
  });

  it('refuses an unknown zone, a clock that is not HH:MM below 24:00 and a date that does not exist', () => {
    expect(() => wallClockToInstants('Mars/Olympus', '2026-06-15', '09:00')).toThrow(RangeError);
    expect(() => wallClockToInstants('UTC', '2026-06-15', '24:00')).toThrow(RangeError);
    expect(() => wallClockToInstants('UTC', '2026-06-15', '9:00')).toThrow(RangeError);
    expect(() => wallClockToInstants('UTC', '2026-02-29', '09:00')).toThrow(RangeError);
  });
});

describe('resolveWallClock', () => {
  it('moves a bound in a gap to the instant the clock jumps at', () => {
    expect(resolveWallClock('America/New_York', '2026-03-08', 150, 'earlier').toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(resolveWallClock('America/New_York', '2026-03-08', 150, 'later').toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(resolveWallClock('Australia/Lord_Howe', '2026-10-04', 135, 'earlier').toISOString()).toBe('2026-10-03T15:30:00.000Z');
    expect(resolveWallClock('Australia/Sydney', '2026-10-04', 130, 'later').toISOString()).toBe('2026-10-03T16:00:00.000Z');
  });

  it('picks the earlier or the later instant in an overlap', () => {
    expect(resolveWallClock('Europe/Berlin', '2026-10-25', 150, 'earlier').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(resolveWallClock('Europe/Berlin', '2026-10-25', 150, 'later').toISOString()).toBe('2026-10-25T01:30:00.000Z');
  });

  it("'compatible': the earlier in an overlap, and a time in a gap moved forward by the gap", () => {
    expect(resolveWallClock('Europe/Berlin', '2026-10-25', 150, 'compatible').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // New York 02:30 on 8 March 2026 does not exist: 03:30 EDT.
    expect(resolveWallClock('America/New_York', '2026-03-08', 150, 'compatible').toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // Lord Howe skips 02:00-02:30: 02:15 becomes 02:45 (+11:00).
    expect(resolveWallClock('Australia/Lord_Howe', '2026-10-04', 135, 'compatible').toISOString()).toBe('2026-10-03T15:45:00.000Z');
    expect(resolveWallClock('America/New_York', '2026-06-15', 9 * 60, 'compatible').toISOString()).toBe('2026-06-15T13:00:00.000Z');
  });

  it('rolls minutes past the day over into the next dates', () => {
    expect(resolveWallClock('Europe/Berlin', '2026-06-15', 24 * 60, 'earlier').toISOString()).toBe('2026-06-15T22:00:00.000Z');
    expect(resolveWallClock('Europe/Berlin', '2026-06-15', 30 * 60, 'compatible').toISOString()).toBe('2026-06-16T04:00:00.000Z');
  });

  it('refuses an unknown zone and a date that does not exist', () => {
    expect(() => resolveWallClock('Mars/Olympus', '2026-06-15', 0, 'earlier')).toThrow(RangeError);
    expect(() => resolveWallClock('UTC', '2026-02-30', 0, 'compatible')).toThrow(RangeError);
  });
});

describe('localDayStart', () => {
  it('is midnight, or the end of the gap when midnight is skipped', () => {
    expect(localDayStart('America/New_York', '2026-11-02').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    // Chile: 00:00 (-04:00) -> 01:00 (-03:00) on 6 September 2026.
    expect(localDayStart('America/Santiago', '2026-09-06').toISOString()).toBe('2026-09-06T04:00:00.000Z');
  });
});

describe('localParts, offsetMsAt, formatOffset, describeInstant', () => {
  it('reads the wall clock to the second, midnight as hour 0', () => {
    expect(localParts('Asia/Kolkata', new Date('2026-06-15T18:30:05.999Z'))).toEqual({ year: 2026, month: 6, day: 16, hour: 0, minute: 0, second: 5 });
  });

  it('gives the offset in ms for a Date or a number, milliseconds of the instant ignored', () => {
    expect(offsetMsAt('Asia/Kathmandu', new Date('2026-01-01T00:00:00Z'))).toBe((5 * 60 + 45) * 60_000);
    expect(offsetMsAt('America/New_York', Date.parse('2026-07-01T12:00:00.750Z'))).toBe(-4 * 3_600_000);
    expect(offsetMsAt('America/New_York', -1)).toBe(-5 * 3_600_000);
  });

  it('writes offsets as ISO 8601 does, never Z', () => {
    expect(formatOffset(0)).toBe('+00:00');
    expect(formatOffset(-(3 * 60 + 30) * 60_000)).toBe('-03:30');
    expect(formatOffset((5 * 60 + 45) * 60_000)).toBe('+05:45');
  });

  it('describes an instant: local date, clock and offset', () => {
    expect(describeInstant('America/New_York', new Date('2026-11-01T06:30:00Z'))).toEqual({
      localDate: '2026-11-01',
      localStart: '2026-11-01T01:30',
      utcOffset: '-05:00',
    });
  });
});

describe('offsetAt, localDateOf, localDateTimeOf', () => {
  it('reads the offset in force at the instant', () => {
    expect(offsetAt('America/New_York', new Date('2026-03-08T06:59:59Z'))).toBe('-05:00');
    expect(offsetAt('America/New_York', new Date('2026-03-08T07:00:00Z'))).toBe('-04:00');
    expect(offsetAt('Asia/Kolkata', new Date('2026-06-15T00:00:00Z'))).toBe('+05:30');
    expect(offsetAt('Australia/Lord_Howe', new Date('2026-01-15T00:00:00Z'))).toBe('+11:00');
    expect(offsetAt('Australia/Lord_Howe', new Date('2026-07-15T00:00:00Z'))).toBe('+10:30');
    expect(offsetAt('Australia/Sydney', new Date('2026-01-15T00:00:00Z'))).toBe('+11:00');
    expect(offsetAt('Australia/Sydney', new Date('2026-07-15T00:00:00Z'))).toBe('+10:00');
    expect(offsetAt('UTC', new Date('2026-07-15T00:00:00Z'))).toBe('+00:00');
  });

  it('reads the local date and clock, across the UTC date line of the zone', () => {
    expect(localDateOf(new Date('2026-03-08T04:59:00Z'), 'America/New_York')).toBe('2026-03-07');
    expect(localDateOf(new Date('2026-03-08T05:00:00Z'), 'America/New_York')).toBe('2026-03-08');
    expect(localDateOf(new Date('2026-06-15T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-06-16');
    expect(localDateOf(new Date('2026-06-15T18:29:59Z'), 'Asia/Kolkata')).toBe('2026-06-15');
    expect(localDateTimeOf(new Date('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30');
  });
});

describe('parseDate', () => {
  it('accepts real calendar dates only', () => {
    expect(parseDate('2028-02-29')).toEqual({ year: 2028, month: 2, day: 29 });
    expect(parseDate('2026-02-29')).toBeNull();
    expect(parseDate('2026-04-31')).toBeNull();
    expect(parseDate('2026-13-01')).toBeNull();
    expect(parseDate('2026-1-01')).toBeNull();
  });
});

describe('civil dates', () => {
  it('adds days across months, leap days and years, on text and on parts', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addCivilDays({ year: 2024, month: 12, day: 31 }, 1)).toEqual({ year: 2025, month: 1, day: 1 });
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('counts weekdays from Monday = 0', () => {
    expect(isoWeekdayIndex('2026-06-15')).toBe(0);
    expect(isoWeekdayIndex('2026-06-21')).toBe(6);
    expect(civilWeekdayIndex({ year: 2025, month: 3, day: 9 })).toBe(6);
  });

  it('reads HH:MM clocks up to 24:00', () => {
    expect(clockMinutes('00:00')).toBe(0);
    expect(clockMinutes('09:30')).toBe(570);
    expect(clockMinutes('24:00')).toBe(1440);
    expect(clockMinutes('24:01')).toBeNull();
    expect(clockMinutes('12:60')).toBeNull();
    expect(clockMinutes('9:30')).toBeNull();
  });
});

