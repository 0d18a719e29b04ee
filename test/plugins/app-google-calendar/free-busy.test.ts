import { ValidationError } from '../../../core';
import { googleCalendarApp } from '../../../plugins/app-google-calendar';
import { freeGaps, mergeSpans, slotsIn } from '../../../plugins/app-google-calendar/free-slots';
import { runAction } from '../../../plugins/flows/testing-kit';
import { useCalendarVendor } from './calendar-test-setup';

const vendor = useCalendarVendor([
  { id: 'ada@example.com', summary: 'Ada', primary: true },
  { id: 'team@group.calendar.google.com', summary: 'Team' },
]);

const T = (hhmm: string) => `2025-03-10T${hhmm}:00.000Z`;
const ms = (hhmm: string) => Date.parse(T(hhmm));

describe('free and busy time', () => {
  describe('the gaps and slots', () => {
    it('merges overlapping and touching spans, keeps gaps at least as long as asked, and packs slots from each gap’s start', () => {
      const busy = [
        { start: ms('09:30'), end: ms('10:00') },
        { start: ms('09:45'), end: ms('10:15') },
        { start: ms('10:15'), end: ms('10:30') },
        { start: ms('11:10'), end: ms('11:20') },
        { start: ms('07:00'), end: ms('08:30') },
      ];
      expect(mergeSpans(busy)).toEqual([
        { start: ms('07:00'), end: ms('08:30') },
        { start: ms('09:30'), end: ms('10:30') },
        { start: ms('11:10'), end: ms('11:20') },
      ]);
      const range = { start: ms('08:00'), end: ms('12:00') };
      const gaps = freeGaps(range, busy, 30 * 60_000);
      expect(gaps).toEqual([
        { start: ms('08:30'), end: ms('09:30') },
        { start: ms('10:30'), end: ms('11:10') },
        { start: ms('11:20'), end: ms('12:00') },
      ]);
      expect(slotsIn(gaps, 30 * 60_000, 100)).toEqual([
        { start: ms('08:30'), end: ms('09:00') },
        { start: ms('09:00'), end: ms('09:30') },
        { start: ms('10:30'), end: ms('11:00') },
        { start: ms('11:20'), end: ms('11:50') },
      ]);
      expect(slotsIn(gaps, 30 * 60_000, 2)).toHaveLength(2);
      expect(freeGaps(range, [], 60_000)).toEqual([range]);
      expect(freeGaps(range, [{ start: ms('06:00'), end: ms('13:00') }], 60_000)).toEqual([]);
    });
  });

  describe('find_free_busy', () => {
    beforeAll(() => {
      const { state } = vendor.google;
      state.putEvent('ada@example.com', { id: 'adabusy01', start: { dateTime: T('09:00') }, end: { dateTime: T('09:30') } });
      state.putEvent('ada@example.com', { id: 'adafree01', start: { dateTime: T('11:00') }, end: { dateTime: T('11:30') }, transparency: 'transparent' });
      state.putEvent('team@group.calendar.google.com', { id: 'teambusy1', start: { dateTime: T('09:15') }, end: { dateTime: T('10:00') } });
      state.putEvent('team@group.calendar.google.com', { id: 'teambusy2', start: { dateTime: T('10:40') }, end: { dateTime: T('11:00') } });
    });

    it('asks Google for the calendars’ busy periods and answers the merged busy time, the free gaps and the slots', async () => {
      const run = await runAction(
        googleCalendarApp,
        'find_free_busy',
        { calendar_ids: ['ada@example.com', 'team@group.calendar.google.com'], time_min: '2025-03-10T09:00:00+00:00', time_max: '2025-03-10T12:00:00+00:00', duration_minutes: 30 },
        vendor.call(),
      );
      const request = vendor.google.requests.at(-1)!;
      expect(`${request.method} ${request.path}`).toBe('POST /calendar/v3/freeBusy');
      expect(request.json()).toEqual({ timeMin: T('09:00'), timeMax: T('12:00'), items: [{ id: 'ada@example.com' }, { id: 'team@group.calendar.google.com' }] });
      expect(run.output).toEqual({
        time_min: T('09:00'),
        time_max: T('12:00'),
        busy: [
          { start: T('09:00'), end: T('10:00') },
          { start: T('10:40'), end: T('11:00') },
        ],
        calendars: {
          'ada@example.com': { busy: [{ start: T('09:00'), end: T('09:30') }] },
          'team@group.calendar.google.com': {
            busy: [
              { start: T('09:15'), end: T('10:00') },
              { start: T('10:40'), end: T('11:00') },
            ],
          },
        },
        free: [
          { start: T('10:00'), end: T('10:40') },
          { start: T('11:00'), end: T('12:00') },
        ],
        slots: [
          { start: T('10:00'), end: T('10:30') },
          { start: T('11:00'), end: T('11:30') },
          { start: T('11:30'), end: T('12:00') },
        ],
      });
    });

    it('a calendar Google cannot read fails the step, naming it and Google’s reason', async () => {
      const error = await runAction(
        googleCalendarApp,
        'find_free_busy',
        { calendar_ids: ['ada@example.com', 'ghost@example.com'], time_min: T('09:00'), time_max: T('12:00') },
        vendor.call(),
      ).then(
        () => null,
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).toMatch(/^Google Calendar could not tell the busy time of calendar ghost@example.com \(notFound\)/);
    });

    const refusal = (promise: Promise<unknown>) => promise.then(() => null, (caught: unknown) => caught as ValidationError);

    it('refuses a period that ends before it starts, and no calendars, at the member', async () => {
      const backwards = await refusal(runAction(googleCalendarApp, 'find_free_busy', { calendar_ids: ['ada@example.com'], time_min: T('12:00'), time_max: T('09:00') }, vendor.call()));
      expect(backwards?.errors).toEqual({ 'config.time_max': ['must be after `time_min`'] });
      const none = await refusal(runAction(googleCalendarApp, 'find_free_busy', { calendar_ids: [], time_min: T('09:00'), time_max: T('12:00'), duration_minutes: 0 }, vendor.call()));
      expect(Object.keys(none?.errors ?? {}).sort()).toEqual(['config.calendar_ids', 'config.duration_minutes']);
    });
  });
});
