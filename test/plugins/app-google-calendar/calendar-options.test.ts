import { ValidationError } from '../../../core';
import { googleCalendarApp } from '../../../plugins/app-google-calendar';
import { loadOptions } from '../../../plugins/flows/testing-kit';
import { useCalendarVendor } from './calendar-test-setup';

/** 300 calendars: more than one page of Google's calendar list (250 at most). */
const CALENDARS = [
  { id: 'ada@example.com', summary: 'Ada Lovelace', primary: true },
  ...Array.from({ length: 298 }, (_, i) => ({ id: `team${i}@group.calendar.google.com`, summary: `Team ${String(i).padStart(3, '0')}` })),
  { id: 'holidays@group.calendar.google.com', summary: 'Company Holidays' },
];

const vendor = useCalendarVendor(CALENDARS);
const HOUR = 3_600_000;
const at = (offsetHours: number) => new Date(Date.now() + offsetHours * HOUR).toISOString();

describe('google_calendar option lists', () => {
  describe('calendars', () => {
    it('pages with Google’s page token: 250, then the rest, values the calendar ids, the primary one marked', async () => {
      const first = await loadOptions(googleCalendarApp, 'calendars', {}, vendor.call());
      if (!('options' in first.result)) throw new Error('expected options');
      expect(first.result.options).toHaveLength(250);
      expect(first.result.options[0]).toEqual({ label: 'Ada Lovelace (primary)', value: 'ada@example.com' });
      expect(first.result.nextCursor).toEqual(expect.any(String));

      const second = await loadOptions(googleCalendarApp, 'calendars', {}, { ...vendor.call(), cursor: first.result.nextCursor });
      if (!('options' in second.result)) throw new Error('expected options');
      expect(second.result.options).toHaveLength(50);
      expect(second.result.nextCursor).toBeNull();
      const all = [...first.result.options, ...second.result.options].map((option) => option.value);
      expect(new Set(all)).toEqual(new Set(CALENDARS.map((calendar) => calendar.id)));

      const [request] = vendor.google.requests.filter((r) => r.path === '/calendar/v3/users/me/calendarList').slice(-1);
      expect(request.query.get('pageToken')).toBe(first.result.nextCursor);
      expect(request.query.get('maxResults')).toBe('250');
    });

    it('searches names case-insensitively, going on to the next page when one matches nothing', async () => {
      const found = await loadOptions(googleCalendarApp, 'calendars', {}, { ...vendor.call(), search: 'HOLIDAYS' });
      expect(found.result).toEqual({ options: [{ label: 'Company Holidays', value: 'holidays@group.calendar.google.com' }], nextCursor: null });

      const some = await loadOptions(googleCalendarApp, 'calendars', {}, { ...vendor.call(), search: 'team 00' });
      if (!('options' in some.result)) throw new Error('expected options');
      expect(some.result.options.map((option) => option.label)).toEqual(Array.from({ length: 10 }, (_, i) => `Team 00${i}`));
    });
  });

  describe('events', () => {
    beforeAll(() => {
      const google = vendor.google;
      for (let i = 0; i < 130; i++) {
        google.state.putEvent('ada@example.com', { id: `upcoming${String(i).padStart(3, '0')}`, summary: i === 7 ? 'Board meeting' : `Call ${i}`, start: { dateTime: at(i + 1) }, end: { dateTime: at(i + 2) } });
      }
      google.state.putEvent('ada@example.com', { id: 'pastevent1', summary: 'Board meeting (last year)', start: { dateTime: at(-9000) }, end: { dateTime: at(-8999) } });
      google.state.putEvent('ada@example.com', { id: 'allday001', summary: 'Offsite', start: { date: at(48).slice(0, 10) }, end: { date: at(72).slice(0, 10) } });
      google.state.putEvent('ada@example.com', { id: 'cancelled1', summary: 'Board meeting (cancelled)', start: { dateTime: at(3) }, end: { dateTime: at(4) } });
      google.state.removeEvent('ada@example.com', 'cancelled1');
    });

    it('lists upcoming events of the calendar in start order, 100 a page, labelled with their start', async () => {
      const first = await loadOptions(googleCalendarApp, 'events', { calendar_id: 'primary' }, vendor.call());
      if (!('options' in first.result)) throw new Error('expected options');
      expect(first.result.options).toHaveLength(100);
      const event = vendor.google.state.eventOf('ada@example.com', 'upcoming000')!;
      expect(first.result.options[0]).toEqual({ label: `Call 0 · ${event.start.dateTime!.slice(0, 16).replace('T', ' ')}`, value: 'upcoming000' });

      const second = await loadOptions(googleCalendarApp, 'events', { calendar_id: 'primary' }, { ...vendor.call(), cursor: first.result.nextCursor });
      if (!('options' in second.result)) throw new Error('expected options');
      expect(second.result.nextCursor).toBeNull();
      const values = [...first.result.options, ...second.result.options].map((option) => option.value);
      expect(values).toHaveLength(131);
      expect(values).toContain('allday001');
      expect(values).not.toContain('pastevent1');
      expect(values).not.toContain('cancelled1');
      expect([...first.result.options, ...second.result.options].find((option) => option.value === 'allday001')?.label).toBe(`Offsite · ${at(48).slice(0, 10)}`);

      const request = vendor.google.requests.at(-1)!;
      expect(request.params.calendarId).toBe('primary');
      expect(Object.fromEntries(request.query)).toMatchObject({ singleEvents: 'true', orderBy: 'startTime', maxResults: '100' });
      expect(request.query.get('pageToken')).toEqual(expect.any(String));
    });

    it('refuses a cursor it never returned: a 422 at cursor', async () => {
      const error = await loadOptions(googleCalendarApp, 'events', { calendar_id: 'primary' }, { ...vendor.call(), cursor: 'made-up' }).catch((caught: unknown) => caught);
      expect((error as ValidationError).errors).toEqual({ cursor: ['is not a cursor this list returned'] });
    });

    it('passes the search to Google’s free-text search', async () => {
      const found = await loadOptions(googleCalendarApp, 'events', { calendar_id: 'ada@example.com' }, { ...vendor.call(), search: 'board' });
      if (!('options' in found.result)) throw new Error('expected options');
      expect(found.result.options.map((option) => option.value)).toEqual(['upcoming007']);
      expect(vendor.google.requests.at(-1)!.query.get('q')).toBe('board');
    });

    it('needs the calendar: a 422 at params.calendar_id', async () => {
      const error = await loadOptions(googleCalendarApp, 'events', {}, vendor.call()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors['params.calendar_id']).toEqual(['is required']);
    });
  });
});
