import { ValidationError } from '../../../core';
import { eventIdFor, googleCalendarApp } from '../../../plugins/app-google-calendar';
import { VendorError } from '../../../plugins/flows';
import { runAction } from '../../../plugins/flows/testing-kit';
import { useCalendarVendor } from './calendar-test-setup';

const vendor = useCalendarVendor();
const CALENDAR = 'ada@example.com';
/** The calendar as it appears in a request's path: Google's calendar ids are email addresses, percent-encoded there. */
const CALENDAR_PATH = encodeURIComponent(CALENDAR);

const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as ValidationError);

describe('google_calendar event actions', () => {
  describe('create_event', () => {
    it('inserts the event with an id derived from the step’s idempotency key and answers what Google stored', async () => {
      const run = await runAction(
        googleCalendarApp,
        'create_event',
        {
          calendar_id: 'primary',
          summary: 'Intro call',
          start: '2025-03-10T10:00:00+01:00',
          end: '2025-03-10T10:30:00+01:00',
          time_zone: 'Europe/Paris',
          location: 'Google Meet',
          attendees: ['bob@example.com'],
          send_updates: 'all',
        },
        vendor.call(),
      );
      const id = eventIdFor(run.idempotencyKey);
      expect(id).toMatch(/^[a-v0-9]{52}$/);
      expect(run.output).toMatchObject({
        id,
        calendar_id: 'primary',
        status: 'confirmed',
        summary: 'Intro call',
        start: '2025-03-10T10:00:00+01:00',
        end: '2025-03-10T10:30:00+01:00',
        all_day: false,
        time_zone: 'Europe/Paris',
        location: 'Google Meet',
        attendees: [{ email: 'bob@example.com', name: null, response_status: 'needsAction', optional: false }],
        organizer_email: CALENDAR,
      });
      expect(vendor.google.state.eventOf(CALENDAR, id)?.summary).toBe('Intro call');

      const request = vendor.google.requests.at(-1)!;
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/calendar/v3/calendars/primary/events');
      expect(request.query.get('sendUpdates')).toBe('all');
      expect(request.json()).toEqual({
        id,
        summary: 'Intro call',
        location: 'Google Meet',
        attendees: [{ email: 'bob@example.com' }],
        start: { dateTime: '2025-03-10T10:00:00+01:00', timeZone: 'Europe/Paris' },
        end: { dateTime: '2025-03-10T10:30:00+01:00', timeZone: 'Europe/Paris' },
      });
    });

    it('a retried step makes no second event: Google’s 409 for the id answers the event the first try made', async () => {
      const step = { stepUuid: '0190d5c2-0000-7000-8000-00000000c001' };
      const options = { ...vendor.call(), executionUuid: '0190d5c2-0000-7000-8000-00000000e001', step };
      const input = { calendar_id: CALENDAR, summary: 'Retried', start: '2025-04-01T09:00:00Z', end: '2025-04-01T10:00:00Z' };
      const first = await runAction(googleCalendarApp, 'create_event', input, options);
      const before = vendor.google.state.seq;
      const again = await runAction(googleCalendarApp, 'create_event', input, options);
      expect(again.idempotencyKey).toBe(first.idempotencyKey);
      expect(again.output).toEqual(first.output);
      expect(vendor.google.state.seq).toBe(before);
      expect(vendor.google.requests.slice(-2).map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST /calendar/v3/calendars/${CALENDAR_PATH}/events`,
        `GET /calendar/v3/calendars/${CALENDAR_PATH}/events/${(first.output as { id: string }).id}`,
      ]);
    });

    it('makes an all-day event of the dates of start through end, Google’s end date being exclusive', async () => {
      const run = await runAction(
        googleCalendarApp,
        'create_event',
        { calendar_id: CALENDAR, summary: 'Offsite', start: '2025-06-02T00:00:00+02:00', end: '2025-06-03T00:00:00+02:00', all_day: true },
        vendor.call(),
      );
      expect(vendor.google.requests.at(-1)!.json()).toMatchObject({ start: { date: '2025-06-02' }, end: { date: '2025-06-04' } });
      expect(run.output).toMatchObject({ all_day: true, start: '2025-06-02', end: '2025-06-04' });
    });

    it('refuses what Google would, before asking it: 422s with the member’s path', async () => {
      const sent = vendor.google.requests.length;
      const base = { calendar_id: CALENDAR, summary: 'Bad', start: '2025-03-10T10:00:00Z', end: '2025-03-10T11:00:00Z' };
      const backwards = await refusal(runAction(googleCalendarApp, 'create_event', { ...base, end: '2025-03-10T09:00:00Z' }, vendor.call()));
      expect(backwards?.errors).toEqual({ 'config.end': ['must not be before `start`'] });
      const zone = await refusal(runAction(googleCalendarApp, 'create_event', { ...base, time_zone: 'Mars/Olympus' }, vendor.call()));
      expect(zone?.errors['config.time_zone']).toEqual(['is not an IANA time zone (such as Europe/Paris)']);
      const schema = await refusal(runAction(googleCalendarApp, 'create_event', { ...base, start: 'tomorrow', attendees: ['not-an-email'], send_updates: 'everyone' }, vendor.call()));
      expect(Object.keys(schema?.errors ?? {}).sort()).toEqual(['config.attendees.0', 'config.send_updates', 'config.start']);
      const missing = await refusal(runAction(googleCalendarApp, 'create_event', { calendar_id: CALENDAR }, vendor.call()));
      expect(Object.keys(missing?.errors ?? {}).sort()).toEqual(['config.end', 'config.start', 'config.summary']);
      expect(vendor.google.requests.length).toBe(sent);
    });

    it('a calendar Google does not know fails the step with Google’s 404, not a 500', async () => {
      const error = await runAction(googleCalendarApp, 'create_event', { calendar_id: 'nobody@example.com', summary: 'x', start: '2025-03-10T10:00:00Z', end: '2025-03-10T11:00:00Z' }, vendor.call()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(VendorError);
      expect((error as VendorError).message).toBe('Google Calendar found nothing to create an event in calendar nobody@example.com (404: Not Found)');
    });
  });

  describe('update_event', () => {
    let eventId: string;
    beforeAll(() => {
      eventId = vendor.google.state.putEvent(CALENDAR, { id: 'tobeupdated1', summary: 'Before', location: 'Room 1', start: { dateTime: '2025-05-01T09:00:00Z' }, end: { dateTime: '2025-05-01T10:00:00Z' } }).id;
    });

    it('patches only the members given and answers the event afterwards', async () => {
      const run = await runAction(googleCalendarApp, 'update_event', { calendar_id: CALENDAR, event_id: eventId, summary: 'After' }, vendor.call());
      const request = vendor.google.requests.at(-1)!;
      expect(`${request.method} ${request.path}`).toBe(`PATCH /calendar/v3/calendars/${CALENDAR_PATH}/events/${eventId}`);
      expect(request.json()).toEqual({ summary: 'After' });
      expect(run.output).toMatchObject({ id: eventId, summary: 'After', location: 'Room 1', start: '2025-05-01T09:00:00Z' });
    });

    it('moves the event when given both ends, and replaces the guest list', async () => {
      const run = await runAction(
        googleCalendarApp,
        'update_event',
        { calendar_id: CALENDAR, event_id: eventId, start: '2025-05-02T09:00:00Z', end: '2025-05-02T09:45:00Z', attendees: ['c@example.com'], send_updates: 'none' },
        vendor.call(),
      );
      expect(vendor.google.requests.at(-1)!.query.get('sendUpdates')).toBe('none');
      expect(run.output).toMatchObject({ start: '2025-05-02T09:00:00Z', end: '2025-05-02T09:45:00Z', attendees: [{ email: 'c@example.com' }] });
    });

    it('refuses a change that says nothing, or one end alone, at the member', async () => {
      const nothing = await refusal(runAction(googleCalendarApp, 'update_event', { calendar_id: CALENDAR, event_id: eventId }, vendor.call()));
      expect(Object.keys(nothing?.errors ?? {})).toEqual(['config']);
      const alone = await refusal(runAction(googleCalendarApp, 'update_event', { calendar_id: CALENDAR, event_id: eventId, start: '2025-05-02T09:00:00Z' }, vendor.call()));
      expect(alone?.errors).toEqual({ 'config.end': ['is required with `start`, `all_day` or `time_zone`'] });
    });

    it('an event that does not exist fails the step with Google’s 404', async () => {
      const error = await runAction(googleCalendarApp, 'update_event', { calendar_id: CALENDAR, event_id: 'nosuchevent', summary: 'x' }, vendor.call()).catch((caught: unknown) => caught);
      expect((error as VendorError).status).toBe(404);
      expect((error as VendorError).message).toMatch(/^Google Calendar found nothing to update event nosuchevent \(404/);
    });
  });

  describe('delete_event', () => {
    it('deletes, and answers deleted: false for an event gone already (a retried step succeeds)', async () => {
      vendor.google.state.putEvent(CALENDAR, { id: 'tobedeleted1', summary: 'Doomed' });
      const first = await runAction(googleCalendarApp, 'delete_event', { calendar_id: CALENDAR, event_id: 'tobedeleted1', send_updates: 'all' }, vendor.call());
      expect(first.output).toEqual({ id: 'tobedeleted1', deleted: true });
      expect(vendor.google.state.eventOf(CALENDAR, 'tobedeleted1')?.status).toBe('cancelled');
      expect(vendor.google.requests.at(-1)!.query.get('sendUpdates')).toBe('all');

      const again = await runAction(googleCalendarApp, 'delete_event', { calendar_id: CALENDAR, event_id: 'tobedeleted1' }, vendor.call());
      expect(again.output).toEqual({ id: 'tobedeleted1', deleted: false });
      const never = await runAction(googleCalendarApp, 'delete_event', { calendar_id: CALENDAR, event_id: 'neverthere1' }, vendor.call());
      expect(never.output).toEqual({ id: 'neverthere1', deleted: false });
    });
  });
});
