import { suggestSlots, type Slot, type SuggestRules } from '../../../../plugins/appointments/slots';

// Europe/Berlin in summer (+02:00). The wanted time: Wednesday 17 June 2026, 10:00 local (08:00Z);
// its week runs Monday 15 to Sunday 21 June.
const zone = 'Europe/Berlin';
const wanted = { start: new Date('2026-06-17T08:00:00Z') };

/** A free slot; its local fields are written by hand (+02:00). */
function slot(utc: string, local: string): Slot {
  const start = new Date(utc);
  return { start, end: new Date(start.getTime() + 30 * 60_000), localDate: local.slice(0, 10), localStart: local, utcOffset: '+02:00' };
}

const a = slot('2026-06-17T06:00:00Z', '2026-06-17T08:00'); // same day, 2 h before
const b = slot('2026-06-17T11:00:00Z', '2026-06-17T13:00'); // same day, 3 h after
const c = slot('2026-06-18T08:00:00Z', '2026-06-18T10:00'); // same week, same clock, 24 h after
const d = slot('2026-06-16T09:00:00Z', '2026-06-16T11:00'); // same week, 23 h before
const e = slot('2026-06-24T08:00:00Z', '2026-06-24T10:00'); // next week, same clock, 168 h after
const f = slot('2026-06-22T07:00:00Z', '2026-06-22T09:00'); // next week, 119 h after
const g = slot('2026-06-21T22:30:00Z', '2026-06-22T00:30'); // next week locally (still Sunday in UTC), 110.5 h after
const h = slot('2026-06-12T08:00:00Z', '2026-06-12T10:00'); // previous week, same clock, 120 h before

const free = [e, g, c, a, h, f, b, d];
const names = new Map([a, b, c, d, e, f, g, h].map((s, i) => [s, 'abcdefgh'[i]]));
const order = (slots: Slot[]) => slots.map((s) => names.get(s)).join('');

const rules = (overrides: Partial<SuggestRules>): SuggestRules => ({
  count: 10,
  priority: 'nearest',
  preferSameDay: false,
  preferSameTimeSlot: false,
  includeSameWeek: true,
  ...overrides,
});

describe('suggestSlots', () => {
  it('nearest: by distance from the wanted start, before or after', () => {
    expect(order(suggestSlots(free, wanted, rules({}), zone))).toBe('abdcgfhe');
  });

  it('earliest: by start', () => {
    expect(order(suggestSlots(free, wanted, rules({ priority: 'earliest' }), zone))).toBe('hdabcgfe');
  });

  it('treats an unknown priority as nearest', () => {
    expect(order(suggestSlots(free, wanted, rules({ priority: 'soonest-ish' }), zone))).toBe('abdcgfhe');
  });

  it('preferSameDay puts the wanted date first', () => {
    expect(order(suggestSlots(free, wanted, rules({ priority: 'earliest', preferSameDay: true }), zone))).toBe('abhdcgfe');
  });

  it('preferSameTimeSlot puts the wanted clock on other days first', () => {
    expect(order(suggestSlots(free, wanted, rules({ preferSameTimeSlot: true }), zone))).toBe('cheabdgf');
  });

  it('with both preferences: same day, then same clock, then the rest', () => {
    expect(order(suggestSlots(free, wanted, rules({ priority: 'earliest', preferSameDay: true, preferSameTimeSlot: true }), zone))).toBe('abhcedgf');
  });

  it('includeSameWeek false leaves out the other days of the local week, not the day itself', () => {
    expect(order(suggestSlots(free, wanted, rules({ includeSameWeek: false }), zone))).toBe('abgfhe');
  });

  it('returns at most count, none for a count below 1', () => {
    expect(order(suggestSlots(free, wanted, rules({ count: 3 }), zone))).toBe('abd');
    expect(suggestSlots(free, wanted, rules({ count: 0 }), zone)).toEqual([]);
  });

  it('breaks distance ties towards the earlier start', () => {
    const before = slot('2026-06-17T07:00:00Z', '2026-06-17T09:00');
    const after = slot('2026-06-17T09:00:00Z', '2026-06-17T11:00');
    expect(suggestSlots([after, before], wanted, rules({}), zone)).toEqual([before, after]);
  });
});
