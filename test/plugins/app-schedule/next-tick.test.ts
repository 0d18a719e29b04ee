import { cronProblems, nextTick } from '../../../plugins/app-schedule/schedule';

const at = (iso: string) => new Date(iso);

describe('when a schedule ticks next', () => {
  it('every: one interval after deploy, then one interval after each tick', () => {
    const deployed = at('2025-03-01T10:00:07.000Z');
    expect(nextTick('every', { amount: 15, unit: 'minutes' }, deployed, deployed).toISOString()).toBe('2025-03-01T10:15:07.000Z');
    // Fired 300 ms late: the grid holds, the delay does not accumulate.
    expect(nextTick('every', { amount: 15, unit: 'minutes' }, at('2025-03-01T10:15:07.000Z'), at('2025-03-01T10:15:07.300Z')).toISOString()).toBe('2025-03-01T10:30:07.000Z');
    expect(nextTick('every', { amount: 2, unit: 'days' }, deployed, deployed).toISOString()).toBe('2025-03-03T10:00:07.000Z');
    expect(nextTick('every', { amount: 30, unit: 'seconds' }, deployed, deployed).toISOString()).toBe('2025-03-01T10:00:37.000Z');
  });

  it('every: ticks missed while no worker ran are skipped, not replayed: the next is the first grid point ahead', () => {
    const tick = at('2025-03-01T10:00:00.000Z');
    const now = at('2025-03-01T13:20:00.000Z'); // workers were down for over three hours
    expect(nextTick('every', { amount: 1, unit: 'hours' }, tick, now).toISOString()).toBe('2025-03-01T14:00:00.000Z');
  });

  it('cron: the next occurrence in the schedule’s time zone, keeping local time across a DST change', () => {
    const weekdays9 = { expression: '0 9 * * 1-5', timezone: 'Europe/Madrid' };
    // Friday 28 March 2025, after 9:00 in Madrid (UTC+1): next is Monday 31 March, after the switch to UTC+2.
    expect(nextTick('cron', weekdays9, at('2025-03-28T08:00:00.000Z'), at('2025-03-28T08:00:01.000Z')).toISOString()).toBe('2025-03-31T07:00:00.000Z');
    expect(nextTick('cron', { expression: '*/5 * * * *' }, at('2025-03-01T10:05:00.000Z'), at('2025-03-01T10:05:00.200Z')).toISOString()).toBe('2025-03-01T10:10:00.000Z');
    expect(nextTick('cron', { expression: '@daily', timezone: 'America/New_York' }, at('2025-03-01T12:00:00.000Z'), at('2025-03-01T12:00:00.000Z')).toISOString()).toBe(
      '2025-03-02T05:00:00.000Z',
    );
  });

  it('cron: a late tick is followed by the next occurrence after now, not by the missed ones', () => {
    expect(nextTick('cron', { expression: '0 * * * *' }, at('2025-03-01T10:00:00.000Z'), at('2025-03-01T12:30:00.000Z')).toISOString()).toBe('2025-03-01T13:00:00.000Z');
  });

  it('cron problems name the member: an unknown time zone, an expression out of range or that never fires', () => {
    expect(cronProblems({ expression: '0 9 * * 1-5', timezone: 'Europe/Madrid' })).toBeNull();
    expect(cronProblems({ expression: '0 9 * * *' })).toBeNull();
    expect(cronProblems({ expression: '0 9 * * *', timezone: 'Mars/Olympus_Mons' })).toEqual({ 'config.timezone': ['"Mars/Olympus_Mons" is not an IANA time zone (e.g. Europe/Madrid)'] });
    expect(cronProblems({ expression: '61 * * * *' })).toEqual({ 'config.expression': [expect.stringMatching(/^is not a valid cron expression: /)] });
    expect(cronProblems({ expression: '0 0 30 2 *' })).toEqual({ 'config.expression': [expect.stringMatching(/^is not a valid cron expression: /)] });
  });
});
