import { definePlugin } from '../../../core';
import { startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import { readEvent } from '../../../plugins/app-caldav/ical';
import { flowApps } from '../../../plugins/flows';
import { chatApp } from '../flows/catalog/fixture-apps';
import { useRadicale } from '../app-caldav/radicale-server';
import { dayFromNow, madrid, makeSchedule, makeType } from '../appointments/appointments-kit';
import { SYNC_CONFIG, announceBookedAgain, calendarSyncPlugins, eventRow, forgetRow, slotClocks } from './calendar-sync-kit';

const radicale = useRadicale();
let kit: TestKernel;
let connection: string;

beforeAll(async () => {
  // A connect app that is not a calendar, to refuse as a schedule's calendar.
  const chat = definePlugin({ id: 'fixture-chat', dependsOn: ['flows'], contributes: [flowApps.add(chatApp)] });
  kit = await startTestKernel({ plugins: [...calendarSyncPlugins('app-caldav'), chat], config: SYNC_CONFIG });
  const created = await kit.api
    .post('/api/v1/flow/connections')
    .send({ app_uid: 'caldav', label: 'Alice’s Radicale', credentials: { username: 'alice', password: 'alice-secret', server_url: radicale.server.url } })
    .expect(201);
  connection = created.body.data.uuid;
});
afterAll(() => kit?.stop());

const day = dayFromNow(12);
const window = { from: madrid(day, '00:00'), to: madrid(dayFromNow(13), '00:00') };
/** `2026-03-01T13:00:00.000Z` as iCalendar writes a UTC time. */
const icalUtc = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** The hrefs of the calendar's objects (PROPFIND, depth 1). */
async function hrefs(): Promise<string[]> {
  const answer = await radicale.server.request('alice', 'PROPFIND', radicale.work, { headers: { depth: '1' } });
  return [...answer.text.matchAll(/<(?:\w+:)?href>([^<]+\.ics)<\/(?:\w+:)?href>/g)].map((match) => match[1]);
}

/** The event at `href` as the server stores it, parsed; null once deleted. */
async function stored(href: string) {
  const answer = await radicale.server.request('alice', 'GET', href);
  return answer.status === 404 ? null : readEvent(answer.text);
}

describe('a schedule with a CalDAV calendar (a real Radicale)', () => {
  it('a meeting in the calendar blocks the slots it overlaps', async () => {
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: day, hours: [{ start: '09:00', end: '12:00' }] }], calendar_connection_uuid: connection });
    const type = await makeType(kit.api, schedule, { duration_minutes: 60 });
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '10:00', '11:00']);
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:dentist-meeting',
      'DTSTAMP:20260101T000000Z',
      `DTSTART:${icalUtc(madrid(day, '10:15'))}`,
      `DTEND:${icalUtc(madrid(day, '10:45'))}`,
      'SUMMARY:Supplier call',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const href = await radicale.server.putObject('alice', radicale.work, 'meeting.ics', ics);
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '11:00']);
    await radicale.server.request('alice', 'DELETE', href);
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '10:00', '11:00']);
  });

  it('a booking makes an event, a reschedule moves it, a cancel deletes it; a booking announced again makes no second event', async () => {
    const schedule = await makeSchedule(kit.api, { name: 'Physio room 2', calendar_connection_uuid: connection });
    // 45-minute slots from 09:00: 12:00, 12:45, 13:30, 14:15, 15:00, ...
    const type = await makeType(kit.api, schedule, { duration_minutes: 45 });
    const uuid = (
      await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '12:45'), notes: 'Knee', answers: { side: 'left' } }).expect(201)
    ).body.data.uuid;
    const row = await waitFor(() => eventRow(kit, uuid), (found) => found?.state === 'synced');
    expect(row).toMatchObject({ app_uid: 'caldav', calendar_id: radicale.work, connection_uuid: connection });
    expect(row!.event_id).toMatch(new RegExp(`^${radicale.work}[0-9a-f-]{36}\\.ics$`));
    const href = row!.event_id!;
    expect(await stored(href)).toMatchObject({
      summary: 'Physio room 2',
      description: `Knee\n\nside: left\n\nAppointment ${uuid}`,
      start: madrid(day, '12:45'),
      end: madrid(day, '13:30'),
    });
    // The calendar holds the booking: another schedule sharing it finds that time busy.
    const sharing = await makeSchedule(kit.api, { name: 'Physio room 2, video', calendar_connection_uuid: connection });
    const sharingType = await makeType(kit.api, sharing, { duration_minutes: 45 });
    expect(await slotClocks(kit.api, sharing, sharingType, madrid(day, '12:00'), madrid(day, '15:00'))).toEqual(['12:00', '13:30', '14:15']);

    // Retried after the event was made but not recorded: the create finds the object its UID names, and writes no second one.
    await kit.outboxDrained();
    const before = await hrefs();
    await forgetRow(kit, uuid);
    await announceBookedAgain(kit, kit.api, uuid, { uuid: schedule, name: 'Physio room 2', timezone: 'Europe/Madrid', calendar_connection_uuid: connection });
    expect(await waitFor(() => eventRow(kit, uuid), (found) => found !== undefined)).toMatchObject({ state: 'synced', event_id: href });
    expect(await hrefs()).toEqual(before);

    await kit.api.post(`/api/v1/appointments/${uuid}/reschedule`).send({ starts_at: madrid(day, '15:00') }).expect(200);
    await waitFor(() => stored(href), (event) => event?.start === madrid(day, '15:00'));
    expect(await stored(href)).toMatchObject({ summary: 'Physio room 2', end: madrid(day, '15:45') });
    expect(await hrefs()).toEqual(before);
    expect(await slotClocks(kit.api, sharing, sharingType, madrid(day, '12:00'), madrid(day, '15:00'))).toEqual(['12:00', '12:45', '13:30', '14:15']);

    await kit.api.post(`/api/v1/appointments/${uuid}/cancel`).send({}).expect(200);
    await waitFor(() => stored(href), (event) => event === null);
    // Recorded once the consumer's transaction commits, just after the calendar call.
    await waitFor(() => eventRow(kit, uuid), (found) => found?.state === 'deleted');
  });

  it('refuses as a schedule’s calendar a connection of an app that is not a calendar, or another tenant’s', async () => {
    const chatConnection = (await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_chat', label: 'Bot', credentials: { bot_token: 't-1' } }).expect(201)).body.data.uuid;
    const res = await kit.api.post('/api/v1/schedules').send({ name: 'x', timezone: 'Europe/Madrid', weekly_hours: {}, calendar_connection_uuid: chatConnection }).expect(422);
    expect(res.body.errors).toEqual({ calendar_connection_uuid: [expect.stringContaining('is a connection of the app "fixture_chat", which is not a calendar; use a connection of: google_calendar (Google Calendar), caldav (CalDAV)')] });
    const other = await kit.createTenant();
    const foreign = await other.api.post('/api/v1/schedules').send({ name: 'x', timezone: 'Europe/Madrid', weekly_hours: {}, calendar_connection_uuid: connection }).expect(422);
    expect(foreign.body.errors.calendar_connection_uuid[0]).toContain('is not a flow connection of this tenant');
  });
});

describe('appointment_calendar_events', () => {
  it('the migration creates exactly what the entity describes', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.split('\n').filter((line) => line.includes('appointment_calendar_events'))).toEqual([]);
    const [table] = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from information_schema.tables where table_name = 'appointment_calendar_events'`);
    expect(table.n).toBe(1);
  });
});
