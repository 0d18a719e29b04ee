import { formatLocalTime, localDayStart } from '../../../../plugins/runtime/turn-rules';

const at = (iso: string) => new Date(iso);

describe('localDayStart', () => {
  it('is local midnight on an ordinary day, east and west of UTC', () => {
    expect(localDayStart('Europe/Madrid', at('2026-11-27T00:34:53Z')).toISOString()).toBe('2026-11-26T23:00:00.000Z');
    expect(localDayStart('Europe/Madrid', at('2026-11-26T22:59:59Z')).toISOString()).toBe('2026-11-25T23:00:00.000Z');
    // 22:00 in New York on the 26th while it is already the 27th in UTC.
    expect(localDayStart('America/New_York', at('2026-11-27T03:00:00Z')).toISOString()).toBe('2026-11-26T05:00:00.000Z');
    expect(localDayStart('Asia/Kathmandu', at('2026-11-27T00:34:53Z')).toISOString()).toBe('2026-11-26T18:15:00.000Z');
    expect(localDayStart('UTC', at('2026-11-27T00:34:53Z')).toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });

  it('returns the instant itself at the start of the day', () => {
    expect(localDayStart('Europe/Madrid', at('2026-11-26T23:00:00Z')).toISOString()).toBe('2026-11-26T23:00:00.000Z');
  });

  it('is right on the days DST starts and ends (midnight at the offset of midnight, not of now)', () => {
    // Madrid springs forward at 02:00 on 29 March 2026: midnight was still +01:00.
    expect(localDayStart('Europe/Madrid', at('2026-03-29T20:00:00Z')).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    // And falls back at 03:00 on 25 October: midnight was +02:00; the next day starts at +01:00 (a 25-hour day).
    expect(localDayStart('Europe/Madrid', at('2026-10-25T20:00:00Z')).toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(localDayStart('Europe/Madrid', at('2026-10-26T08:00:00Z')).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    // New York: 8 March and 1 November 2026.
    expect(localDayStart('America/New_York', at('2026-03-08T20:00:00Z')).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(localDayStart('America/New_York', at('2026-11-01T20:00:00Z')).toISOString()).toBe('2026-11-01T04:00:00.000Z');
  });

  it('starts the day at the DST change when that skips midnight', () => {
    // Chile moves from 00:00 (-04:00) to 01:00 (-03:00) on 6 September 2026: the day starts at 01:00 local.
    const start = localDayStart('America/Santiago', at('2026-09-06T15:00:00Z'));
    expect(start.toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(formatLocalTime('America/Santiago', start)).toBe('Sunday 2026-09-06 01:00 (UTC-03:00)');
    expect(formatLocalTime('America/Santiago', new Date(start.getTime() - 1))).toMatch(/^Saturday 2026-09-05 23:59/);
  });

  it('counts in UTC for a zone it does not know', () => {
    expect(localDayStart('Mars/Olympus', at('2026-11-27T10:00:00Z')).toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });
});
