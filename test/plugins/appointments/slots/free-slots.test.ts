import { freeSlots, type Slot, type SlotSearch } from '../../../../plugins/appointments/slots';

const at = (text: string) => new Date(text);

/** A search with nothing busy, no buffers, no exceptions; `overrides` set the rest. */
function search(overrides: Partial<SlotSearch> & Pick<SlotSearch, 'timezone' | 'weeklyHours' | 'from' | 'to'>): SlotSearch {
  return { exceptions: [], durationMinutes: 60, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, busy: [], ...overrides };
}

const starts = (slots: Slot[]) => slots.map((slot) => slot.start.toISOString());
const locals = (slots: Slot[]) => slots.map((slot) => `${slot.localStart}${slot.utcOffset}`);

describe('freeSlots across DST in America/New_York', () => {
  it('holds 2 real hours in 01:00-04:00 on the spring-forward day (8 March 2026), no slot at a missing time', () => {
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: { sun: [{ start: '01:00', end: '04:00' }] },
        durationMinutes: 30,
        from: at('2026-03-08T05:00:00Z'),
        to: at('2026-03-09T04:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-03-08T06:00:00.000Z', '2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z']);
    expect(locals(slots)).toEqual(['2026-03-08T01:00-05:00', '2026-03-08T01:30-05:00', '2026-03-08T03:00-04:00', '2026-03-08T03:30-04:00']);
    expect(slots.every((slot) => slot.localDate === '2026-03-08')).toBe(true);
    expect(slots[3].end.toISOString()).toBe('2026-03-08T08:00:00.000Z');
  });

  it('holds 4 real hours in 00:00-03:00 on the fall-back day (1 November 2026), 01:00 twice', () => {
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: { sun: [{ start: '00:00', end: '03:00' }] },
        from: at('2026-11-01T04:00:00Z'),
        to: at('2026-11-02T05:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z']);
    expect(locals(slots)).toEqual(['2026-11-01T00:00-04:00', '2026-11-01T01:00-04:00', '2026-11-01T01:00-05:00', '2026-11-01T02:00-05:00']);
  });

  it('counts 23 and 25 one-hour slots in a 00:00-24:00 day', () => {
    const day = (from: string, to: string) =>
      freeSlots(search({ timezone: 'America/New_York', weeklyHours: { sun: [{ start: '00:00', end: '24:00' }] }, from: at(from), to: at(to) }));
    const spring = day('2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z');
    expect(spring).toHaveLength(23);
    expect(spring[22].end.toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(spring[22].localStart).toBe('2026-03-08T23:00');
    const fall = day('2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z');
    expect(fall).toHaveLength(25);
    expect(fall[24].end.toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(fall[24].localStart).toBe('2026-11-01T23:00');
  });

  it('ends a window at the later instant of a repeated end time', () => {
    // 00:00-01:30 on 1 November: 04:00Z to the second 01:30 (EST, 06:30Z), 2.5 real hours.
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: { sun: [{ start: '00:00', end: '01:30' }] },
        durationMinutes: 30,
        from: at('2026-11-01T04:00:00Z'),
        to: at('2026-11-02T05:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-11-01T04:00:00.000Z', '2026-11-01T04:30:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-01T06:00:00.000Z']);
    expect(locals(slots).slice(3)).toEqual(['2026-11-01T01:30-04:00', '2026-11-01T01:00-05:00']);
  });

  it('merges the slots of two windows that overlap in real time on a fall-back day, in order', () => {
    // 00:00-01:40 ends at the later 01:40 (06:40Z); 01:40-03:00 starts at the earlier (05:40Z).
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: {
          sun: [
            { start: '01:40', end: '03:00' },
            { start: '00:00', end: '01:40' },
          ],
        },
        durationMinutes: 30,
        from: at('2026-11-01T04:00:00Z'),
        to: at('2026-11-02T05:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T04:30:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T05:40:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T06:10:00.000Z',
      '2026-11-01T06:40:00.000Z',
      '2026-11-01T07:10:00.000Z',
    ]);
    expect(locals(slots).slice(4)).toEqual(['2026-11-01T01:40-04:00', '2026-11-01T01:00-05:00', '2026-11-01T01:10-05:00', '2026-11-01T01:40-05:00', '2026-11-01T02:10-05:00']);
  });

  it('offers a start once when the windows of a fall-back day repeat it', () => {
    // 00:00-01:30 ends at 06:30Z, 01:30-03:00 starts at 05:30Z: 05:30Z and 06:00Z are in both.
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: { sun: [{ start: '00:00', end: '01:30' }, { start: '01:30', end: '03:00' }] },
        durationMinutes: 30,
        from: at('2026-11-01T04:00:00Z'),
        to: at('2026-11-02T05:00:00Z'),
      }),
    );
    expect(slots).toHaveLength(8);
    expect(new Set(starts(slots)).size).toBe(8);
  });
});

describe('freeSlots across DST in Europe/Berlin', () => {
  it('skips 02:00-03:00 on 29 March 2026 and moves a bound in the gap to 03:00', () => {
    const slots = freeSlots(
      search({
        timezone: 'Europe/Berlin',
        weeklyHours: { sun: [{ start: '01:00', end: '04:00' }] },
        from: at('2026-03-28T23:00:00Z'),
        to: at('2026-03-29T22:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z']);
    expect(locals(slots)).toEqual(['2026-03-29T01:00+01:00', '2026-03-29T03:00+02:00']);

    const fromGap = freeSlots(
      search({
        timezone: 'Europe/Berlin',
        weeklyHours: { sun: [{ start: '02:30', end: '05:00' }] },
        from: at('2026-03-28T23:00:00Z'),
        to: at('2026-03-29T22:00:00Z'),
      }),
    );
    expect(locals(fromGap)).toEqual(['2026-03-29T03:00+02:00', '2026-03-29T04:00+02:00']);
    expect(starts(fromGap)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z']);
  });

  it('gives the repeated hour of 25 October 2026 twice, with both offsets', () => {
    const slots = freeSlots(
      search({
        timezone: 'Europe/Berlin',
        weeklyHours: { sun: [{ start: '02:00', end: '03:00' }] },
        durationMinutes: 30,
        from: at('2026-10-24T22:00:00Z'),
        to: at('2026-10-25T23:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T01:30:00.000Z']);
    expect(locals(slots)).toEqual(['2026-10-25T02:00+02:00', '2026-10-25T02:30+02:00', '2026-10-25T02:00+01:00', '2026-10-25T02:30+01:00']);
  });
});

describe('freeSlots in the southern hemisphere and at half-hour offsets', () => {
  it('follows Australia/Sydney DST: ends 5 April 2026 (02:00-03:00 twice), starts 4 October 2026 (02:00-03:00 missing)', () => {
    const sydney = (from: string, to: string) =>
      freeSlots(search({ timezone: 'Australia/Sydney', weeklyHours: { sun: [{ start: '01:00', end: '04:00' }] }, from: at(from), to: at(to) }));
    const april = sydney('2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z');
    expect(starts(april)).toEqual(['2026-04-04T14:00:00.000Z', '2026-04-04T15:00:00.000Z', '2026-04-04T16:00:00.000Z', '2026-04-04T17:00:00.000Z']);
    expect(locals(april)).toEqual(['2026-04-05T01:00+11:00', '2026-04-05T02:00+11:00', '2026-04-05T02:00+10:00', '2026-04-05T03:00+10:00']);
    expect(april.every((slot) => slot.localDate === '2026-04-05')).toBe(true);
    const october = sydney('2026-10-03T14:00:00Z', '2026-10-04T13:00:00Z');
    expect(starts(october)).toEqual(['2026-10-03T15:00:00.000Z', '2026-10-03T16:00:00.000Z']);
    expect(locals(october)).toEqual(['2026-10-04T01:00+10:00', '2026-10-04T03:00+11:00']);
  });

  it('places Asia/Kolkata hours at +05:30', () => {
    const slots = freeSlots(
      search({
        timezone: 'Asia/Kolkata',
        weeklyHours: { mon: [{ start: '09:00', end: '12:00' }] },
        durationMinutes: 45,
        from: at('2026-06-14T18:30:00Z'),
        to: at('2026-06-15T18:30:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-06-15T03:30:00.000Z', '2026-06-15T04:15:00.000Z', '2026-06-15T05:00:00.000Z', '2026-06-15T05:45:00.000Z']);
    expect(locals(slots)).toEqual(['2026-06-15T09:00+05:30', '2026-06-15T09:45+05:30', '2026-06-15T10:30+05:30', '2026-06-15T11:15+05:30']);
    expect(slots[3].end.toISOString()).toBe('2026-06-15T06:30:00.000Z');
  });

  it('counts the local date, not the UTC one: a Kolkata Tuesday that is still Monday in UTC', () => {
    const slots = freeSlots(
      search({
        timezone: 'Asia/Kolkata',
        weeklyHours: { tue: [{ start: '01:00', end: '02:00' }] },
        from: at('2026-06-15T00:00:00Z'),
        to: at('2026-06-16T00:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-06-15T19:30:00.000Z']);
    expect(slots[0].localDate).toBe('2026-06-16');
  });
});

// A summer week in New York (-04:00): Monday 15 June 2026 starts at 04:00Z.
const weekdays = { mon: [{ start: '09:00', end: '12:00' }], tue: [{ start: '09:00', end: '12:00' }], wed: [{ start: '09:00', end: '12:00' }], thu: [{ start: '09:00', end: '12:00' }], fri: [{ start: '09:00', end: '12:00' }] };
const week = { timezone: 'America/New_York', weeklyHours: weekdays, from: at('2026-06-15T04:00:00Z'), to: at('2026-06-20T04:00:00Z') };

describe('freeSlots: exceptions, fullDates, limit', () => {
  it('gives 3 slots on each weekday without exceptions', () => {
    expect(freeSlots(search(week))).toHaveLength(15);
  });

  it('closes a day, replaces its hours, treats empty hours as closed and ignores an exception with neither', () => {
    const slots = freeSlots(
      search({
        ...week,
        exceptions: [
          { date: '2026-06-16', closed: true },
          { date: '2026-06-17', hours: [{ start: '14:00', end: '16:00' }] },
          { date: '2026-06-18', hours: [] },
          { date: '2026-06-19' },
          // Only the first exception of a date counts.
          { date: '2026-06-16', hours: [{ start: '09:00', end: '10:00' }] },
        ],
      }),
    );
    expect(starts(slots)).toEqual([
      '2026-06-15T13:00:00.000Z',
      '2026-06-15T14:00:00.000Z',
      '2026-06-15T15:00:00.000Z',
      '2026-06-17T18:00:00.000Z',
      '2026-06-17T19:00:00.000Z',
      '2026-06-19T13:00:00.000Z',
      '2026-06-19T14:00:00.000Z',
      '2026-06-19T15:00:00.000Z',
    ]);
  });

  it('opens a closed weekday with an exception', () => {
    const slots = freeSlots(search({ ...week, to: at('2026-06-22T04:00:00Z'), exceptions: [{ date: '2026-06-20', hours: [{ start: '10:00', end: '11:00' }] }] }));
    expect(slots).toHaveLength(16);
    expect(slots[15].start.toISOString()).toBe('2026-06-20T14:00:00.000Z');
    expect(slots[15].localDate).toBe('2026-06-20');
  });

  it('gives nothing on fullDates', () => {
    const slots = freeSlots(search({ ...week, fullDates: new Set(['2026-06-15', '2026-06-17']) }));
    expect(slots).toHaveLength(9);
    expect(slots.map((slot) => slot.localDate)).toEqual([
      '2026-06-16', '2026-06-16', '2026-06-16',
      '2026-06-18', '2026-06-18', '2026-06-18',
      '2026-06-19', '2026-06-19', '2026-06-19',
    ]);
  });

  it('stops after limit slots', () => {
    expect(starts(freeSlots(search({ ...week, limit: 4 })))).toEqual([
      '2026-06-15T13:00:00.000Z',
      '2026-06-15T14:00:00.000Z',
      '2026-06-15T15:00:00.000Z',
      '2026-06-16T13:00:00.000Z',
    ]);
    expect(freeSlots(search({ ...week, limit: 0 }))).toEqual([]);
  });
});

describe('freeSlots: from/to, steps, 24:00', () => {
  it('clips to from and to, keeping the grid anchored at the window start', () => {
    const clipped = { ...week, from: at('2026-06-15T13:30:00Z'), to: at('2026-06-15T15:30:00Z') };
    expect(starts(freeSlots(search(clipped)))).toEqual(['2026-06-15T14:00:00.000Z']);
    expect(starts(freeSlots(search({ ...clipped, stepMinutes: 30 })))).toEqual(['2026-06-15T13:30:00.000Z', '2026-06-15T14:00:00.000Z', '2026-06-15T14:30:00.000Z']);
    expect(freeSlots(search({ ...week, from: at('2026-06-20T04:00:00Z'), to: at('2026-06-15T04:00:00Z') }))).toEqual([]);
  });

  it('steps by stepMinutes, never closer than 5 minutes, and keeps each slot inside its window', () => {
    const utc = { timezone: 'UTC', weeklyHours: { mon: [{ start: '09:00', end: '10:30' }] }, from: at('2026-06-15T00:00:00Z'), to: at('2026-06-16T00:00:00Z') };
    expect(starts(freeSlots(search({ ...utc, stepMinutes: 15 })))).toEqual(['2026-06-15T09:00:00.000Z', '2026-06-15T09:15:00.000Z', '2026-06-15T09:30:00.000Z']);
    const short = { ...utc, weeklyHours: { mon: [{ start: '09:00', end: '09:20' }] }, durationMinutes: 3 };
    expect(starts(freeSlots(search(short)))).toEqual(['2026-06-15T09:00:00.000Z', '2026-06-15T09:05:00.000Z', '2026-06-15T09:10:00.000Z', '2026-06-15T09:15:00.000Z']);
    expect(freeSlots(search({ ...short, stepMinutes: 1 }))).toHaveLength(4);
    // Adjacent windows stay separate: no slot spans 10:00.
    const split = { ...utc, weeklyHours: { mon: [{ start: '09:00', end: '10:00' }, { start: '10:00', end: '11:00' }] }, durationMinutes: 45, stepMinutes: 30 };
    expect(starts(freeSlots(search(split)))).toEqual(['2026-06-15T09:00:00.000Z', '2026-06-15T10:00:00.000Z']);
  });

  it('reads 24:00 as the next local midnight', () => {
    const slots = freeSlots(
      search({
        timezone: 'Europe/Berlin',
        weeklyHours: { mon: [{ start: '22:00', end: '24:00' }], tue: [{ start: '00:00', end: '01:00' }] },
        from: at('2026-01-04T23:00:00Z'),
        to: at('2026-01-06T23:00:00Z'),
      }),
    );
    expect(starts(slots)).toEqual(['2026-01-05T21:00:00.000Z', '2026-01-05T22:00:00.000Z', '2026-01-05T23:00:00.000Z']);
    expect(slots[1].end.toISOString()).toBe('2026-01-05T23:00:00.000Z');
    expect(slots.map((slot) => slot.localDate)).toEqual(['2026-01-05', '2026-01-05', '2026-01-06']);
  });
});

describe('freeSlots: busy times and buffers', () => {
  it('blocks a slot whose buffered span meets a busy time, and not one that only touches it', () => {
    // Window 09:00-13:00 New York = 13:00Z-17:00Z; a slot blocks [start - 15 min, start + 40 min).
    const slots = freeSlots(
      search({
        timezone: 'America/New_York',
        weeklyHours: { mon: [{ start: '09:00', end: '13:00' }] },
        durationMinutes: 30,
        bufferBeforeMinutes: 15,
        bufferAfterMinutes: 10,
        from: at('2026-06-15T04:00:00Z'),
        to: at('2026-06-16T04:00:00Z'),
        busy: [
          { start: at('2026-06-15T16:40:00Z'), end: at('2026-06-15T17:30:00Z') }, // reaches 16:30's after-buffer, outside the window
          { start: at('2026-06-15T14:10:00Z'), end: at('2026-06-15T14:20:00Z') }, // blocks 14:00 and 14:30, touches 13:30's end buffer
          { start: at('2026-06-15T12:30:00Z'), end: at('2026-06-15T13:15:00Z') }, // overlaps the next one, blocks 13:00, ends where 13:30's buffer begins
          { start: at('2026-06-15T12:00:00Z'), end: at('2026-06-15T12:50:00Z') },
          { start: at('2026-06-15T15:30:00Z'), end: at('2026-06-15T15:30:00Z') }, // empty: blocks nothing
          { start: at('2026-06-15T15:40:00Z'), end: at('2026-06-15T15:20:00Z') }, // reversed: blocks nothing
        ],
      }),
    );
    expect(starts(slots)).toEqual(['2026-06-15T13:30:00.000Z', '2026-06-15T15:00:00.000Z', '2026-06-15T15:30:00.000Z', '2026-06-15T16:00:00.000Z']);
  });

  it('walks 60 days against 500 busy intervals', () => {
    // UTC, open all day: 48 half-hour slots a day, 2880 in 60 days. Busy interval i lies
    // inside slot 5i (and a second, overlapping copy too), so each blocks exactly one slot.
    const from = Date.UTC(2026, 0, 1);
    const busy = [];
    for (let i = 499; i >= 0; i--) {
      const slotStart = from + 5 * i * 30 * 60_000;
      busy.push({ start: new Date(slotStart + 5 * 60_000), end: new Date(slotStart + 10 * 60_000) });
      busy.push({ start: new Date(slotStart + 7 * 60_000), end: new Date(slotStart + 20 * 60_000) });
    }
    const every = { start: '00:00', end: '24:00' };
    const weeklyHours = { mon: [every], tue: [every], wed: [every], thu: [every], fri: [every], sat: [every], sun: [every] };
    const base = search({ timezone: 'UTC', weeklyHours, durationMinutes: 30, from: new Date(from), to: at('2026-03-02T00:00:00Z'), busy });
    const slots = freeSlots(base);
    expect(slots).toHaveLength(2880 - 500);
    expect(slots[0].start.toISOString()).toBe('2026-01-01T00:30:00.000Z');
    expect(slots[slots.length - 1].start.toISOString()).toBe('2026-03-01T23:30:00.000Z');
    // Slot 2495 (the last blocked) is 51 days 23:30 after the start: 2026-02-21T23:30Z.
    expect(slots.some((slot) => slot.start.toISOString() === '2026-02-21T23:30:00.000Z')).toBe(false);
    expect(slots.some((slot) => slot.start.toISOString() === '2026-02-22T00:00:00.000Z')).toBe(true);
    expect(freeSlots({ ...base, limit: 10 })).toHaveLength(10);
  });
});

describe('freeSlots: refusals', () => {
  it('throws for an unknown zone, a duration that is not positive, a negative buffer and malformed hours', () => {
    const ok = search(week);
    expect(() => freeSlots({ ...ok, timezone: 'Mars/Olympus' })).toThrow(RangeError);
    expect(() => freeSlots({ ...ok, durationMinutes: 0 })).toThrow(RangeError);
    expect(() => freeSlots({ ...ok, bufferBeforeMinutes: -5 })).toThrow(RangeError);
    expect(() => freeSlots({ ...ok, weeklyHours: { mon: [{ start: '12:00', end: '09:00' }] } })).toThrow(RangeError);
  });
});

describe('freeSlots against a brute-force check', () => {
  it('agrees with testing every grid start against every busy time, on random busy times', () => {
    // A seeded generator (mulberry32), so a failure repeats.
    let seed = 20260615;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const minute = 60_000;
    const dayStart = Date.UTC(2026, 5, 15); // Monday; UTC so every window is plain 09:00-17:00
    for (let round = 0; round < 20; round++) {
      const busy = Array.from({ length: 40 }, () => {
        const start = dayStart + Math.floor(random() * 5 * 24 * 60) * minute;
        return { start: new Date(start), end: new Date(start + Math.floor(random() * 120) * minute) };
      });
      const duration = 15 + Math.floor(random() * 4) * 15;
      const step = 5 + Math.floor(random() * 6) * 5;
      const before = Math.floor(random() * 3) * 10;
      const after = Math.floor(random() * 3) * 10;
      const nine = { start: '09:00', end: '17:00' };
      const slots = freeSlots({
        timezone: 'UTC',
        weeklyHours: { mon: [nine], tue: [nine], wed: [nine], thu: [nine], fri: [nine] },
        exceptions: [],
        durationMinutes: duration,
        stepMinutes: step,
        bufferBeforeMinutes: before,
        bufferAfterMinutes: after,
        from: new Date(dayStart),
        to: new Date(dayStart + 5 * 24 * 60 * minute),
        busy,
      });
      const expected: string[] = [];
      for (let day = 0; day < 5; day++) {
        const open = dayStart + day * 24 * 60 * minute + 9 * 60 * minute;
        for (let start = open; start + duration * minute <= open + 8 * 60 * minute; start += step * minute) {
          const from = start - before * minute;
          const to = start + (duration + after) * minute;
          if (!busy.some((b) => b.start.getTime() < to && from < b.end.getTime())) expected.push(new Date(start).toISOString());
        }
      }
      expect(starts(slots)).toEqual(expected);
    }
  });
});
