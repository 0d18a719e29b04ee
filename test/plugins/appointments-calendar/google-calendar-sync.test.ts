import { ValidationError, definePlugin } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { flowActionsRef, type FlowActions } from '../../../plugins/flows';
import { startOAuthServer, type OAuthServer } from '../../../plugins/flows/testing-kit';
import { AUTHORIZE_PATH, CLIENT, TOKEN_PATH } from '../app-google-calendar/calendar-test-setup';
import { startGoogleCalendarServer, type FakeEventData, type GoogleCalendarServer } from '../app-google-calendar/google-calendar-server';
import { dayFromNow, madrid, madridLocal, makeSchedule, makeType } from '../appointments/appointments-kit';
import { activeAgent } from '../runtime/runtime-test-kit';
import { SYNC_CONFIG, announceBookedAgain, calendarSyncPlugins, eventRow, forgetRow, slotClocks } from './calendar-sync-kit';

const CALENDAR = 'ada@example.com';
let kit: TestKernel;
let oauth: OAuthServer;
let google: GoogleCalendarServer;
let connection: string;
let model: FakeLlmServer;
/** The flows plugin's service, as a plugin depending on flows gets it. */
let actions: FlowActions;
const probe = definePlugin({
  id: 'flow-actions-probe',
  dependsOn: ['flows'],
  deps: { actions: flowActionsRef },
  init: (deps) => void (actions = deps.actions),
});

beforeAll(async () => {
  oauth = await startOAuthServer({ ...CLIENT, authorizePath: AUTHORIZE_PATH, tokenPath: TOKEN_PATH });
  google = await startGoogleCalendarServer({ oauth, calendars: [{ id: CALENDAR, summary: 'Ada Lovelace', primary: true }] });
  model = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: [...calendarSyncPlugins('app-google-calendar'), probe],
    config: {
      ...SYNC_CONFIG,
      llmBaseUrl: model.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      flows: { oauthRedirectUrl: 'http://127.0.0.1:1/oauth/callback' },
      'app-google-calendar': {
        googleCalendarClientId: CLIENT.clientId,
        googleCalendarClientSecret: CLIENT.clientSecret,
        googleCalendarAccountsUrl: oauth.url,
        googleCalendarTokenUrl: `${oauth.url}${TOKEN_PATH}`,
        googleCalendarApiBaseUrl: google.url,
      },
    },
  });
  // The owner connects their Google account as any flow connection is made.
  const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'google_calendar', label: 'Dr. Ruiz’s calendar' }).expect(200);
  const back = new URL(oauth.consent(started.body.data.authorization_url));
  connection = (await kit.client({}).get(`${back.pathname}${back.search}`).expect(200)).body.data.uuid;
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
  await google?.close();
  await oauth?.close();
});

const day = dayFromNow(10);
const window = { from: madrid(day, '00:00'), to: madrid(dayFromNow(11), '00:00') };
const scheduleOf = (uuid: string, name: string) => ({ uuid, name, timezone: 'Europe/Madrid', calendar_connection_uuid: connection });

/** Every event of the calendar (latest version of each), whatever its status. */
const events = (): FakeEventData[] => [...google.state.calendars.get(CALENDAR)!.events.values()].map((versions) => versions.at(-1)!.data);
const eventsOf = (appointment: string) => events().filter((event) => event.description?.includes(`Appointment ${appointment}`));
const postsToEvents = () => google.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/events'));

/** Outbox rows due now, in flight or not. */
const dueOutboxRows = async (): Promise<number> =>
  (await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from bus_outbox where due_at <= now()'))[0].n;

/** The appointment's synced event, once the consumer has written it and recorded it. */
async function syncedEvent(appointment: string, until: (event: FakeEventData) => boolean = () => true): Promise<FakeEventData> {
  const row = await waitFor(() => eventRow(kit, appointment), (found) => found?.state === 'synced' && found.event_id !== null);
  return waitFor(() => google.state.eventOf(CALENDAR, row!.event_id!)!, (event) => event !== undefined && until(event));
}

describe('a schedule with a Google Calendar connection', () => {
  it('refuses a connection uuid that is not one of the tenant’s, and takes the calendar connection', async () => {
    const res = await kit.api
      .post('/api/v1/schedules')
      .send({ name: 'x', timezone: 'Europe/Madrid', weekly_hours: {}, calendar_connection_uuid: '00000000-0000-4000-8000-000000000009' })
      .expect(422);
    expect(res.body.errors.calendar_connection_uuid[0]).toContain('is not a flow connection of this tenant');
    const other = await kit.createTenant();
    await other.api.post('/api/v1/schedules').send({ name: 'x', timezone: 'Europe/Madrid', weekly_hours: {}, calendar_connection_uuid: connection }).expect(422);
    const schedule = await makeSchedule(kit.api, { calendar_connection_uuid: connection });
    expect((await kit.api.get(`/api/v1/schedules/${schedule}`).expect(200)).body.data.calendar_connection_uuid).toBe(connection);
  });

  it('a meeting in the calendar blocks the slots it overlaps', async () => {
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: day, hours: [{ start: '09:00', end: '12:00' }] }], calendar_connection_uuid: connection });
    const type = await makeType(kit.api, schedule, { duration_minutes: 30 });
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '09:30', '10:00', '10:30', '11:00', '11:30']);
    google.state.putEvent(CALENDAR, { id: 'boardmeeting1', summary: 'Board meeting', start: { dateTime: madrid(day, '10:00') }, end: { dateTime: madrid(day, '11:00') } });
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '09:30', '11:00', '11:30']);
    // Booking into the meeting is refused as any taken time is.
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '10:30') }).expect(409);
    google.state.removeEvent(CALENDAR, 'boardmeeting1');
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toContain('10:30');
  });

  it('a calendar that cannot be read offers no slot on a guess (502)', async () => {
    const schedule = await makeSchedule(kit.api, { calendar_connection_uuid: connection });
    const type = await makeType(kit.api, schedule);
    google.state.failNext({ status: 503, body: { error: { code: 503, message: 'Backend Error' } } });
    const res = await kit.api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=${window.from}&to=${window.to}`).expect(502);
    expect(res.body.message).toContain('Backend Error');
  });
});

describe('appointments written to the calendar', () => {
  it('a booking makes an event (the schedule’s name, the notes and answers), a reschedule moves it, a cancel deletes it', async () => {
    const schedule = await makeSchedule(kit.api, { name: 'Dr. Ruiz, dentist', calendar_connection_uuid: connection });
    const type = await makeType(kit.api, schedule, { duration_minutes: 60 });
    const booked = await kit.api
      .post('/api/v1/appointments')
      .send({ availability_type_uuid: type, starts_at: madrid(day, '12:00'), notes: 'First visit', answers: { reason: 'toothache', insured: true } })
      .expect(201);
    const uuid = booked.body.data.uuid;
    const event = await syncedEvent(uuid);
    expect(event).toMatchObject({ status: 'confirmed', summary: 'Dr. Ruiz, dentist', start: { dateTime: madrid(day, '12:00'), timeZone: 'Europe/Madrid' }, end: { dateTime: madrid(day, '13:00') } });
    expect(event.description).toBe(`First visit\n\nreason: toothache\ninsured: true\n\nAppointment ${uuid}`);
    expect(await eventRow(kit, uuid)).toMatchObject({ connection_uuid: connection, app_uid: 'google_calendar', calendar_id: 'primary', event_id: event.id });

    await kit.api.post(`/api/v1/appointments/${uuid}/reschedule`).send({ starts_at: madrid(day, '14:00') }).expect(200);
    const moved = await syncedEvent(uuid, (found) => found.start.dateTime === madrid(day, '14:00'));
    expect(moved).toMatchObject({ id: event.id, end: { dateTime: madrid(day, '15:00') }, summary: 'Dr. Ruiz, dentist' });
    expect(eventsOf(uuid)).toHaveLength(1);
    // Its old time is free in the calendar too; its new one is taken.
    expect(await slotClocks(kit.api, schedule, type, window.from, window.to)).toEqual(['09:00', '10:00', '11:00', '12:00', '13:00', '15:00', '16:00']);

    await kit.api.post(`/api/v1/appointments/${uuid}/cancel`).send({ reason: 'feeling better' }).expect(200);
    await waitFor(() => google.state.eventOf(CALENDAR, event.id)!, (found) => found.status === 'cancelled');
    // Recorded once the consumer's transaction commits, just after the calendar call.
    await waitFor(() => eventRow(kit, uuid), (found) => found?.state === 'deleted');
    expect(eventsOf(uuid)).toHaveLength(1);
  });

  it('a booking announced again after its event was made (the consumer failed to record it) makes no second event; a failing Google is retried', async () => {
    const schedule = await makeSchedule(kit.api, { name: 'Hygienist', calendar_connection_uuid: connection });
    const type = await makeType(kit.api, schedule);
    const uuid = (await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '15:00') }).expect(201)).body.data.uuid;
    const event = await syncedEvent(uuid);
    await kit.outboxDrained();

    // As if the first try's transaction had failed after Google made the event: no row, the message delivered again, and Google failing once more.
    await forgetRow(kit, uuid);
    const posts = postsToEvents().length;
    google.state.failNext({ status: 503, body: { error: { code: 503, message: 'Backend Error' } } });
    await announceBookedAgain(kit, kit.api, uuid, scheduleOf(schedule, 'Hygienist'));
    const row = await waitFor(() => eventRow(kit, uuid), (found) => found !== undefined);
    expect(row).toMatchObject({ state: 'synced', event_id: event.id });
    // Two more creates: the one Google failed, and its retry, which Google answered 409 (the event's id comes from the appointment).
    expect(postsToEvents().length - posts).toBe(2);
    expect(eventsOf(uuid)).toEqual([expect.objectContaining({ id: event.id, status: 'confirmed' })]);

    // A message delivered again while its row is there calls Google for nothing.
    const before = google.requests.length;
    await announceBookedAgain(kit, kit.api, uuid, scheduleOf(schedule, 'Hygienist'));
    await kit.outboxDrained();
    expect(google.requests.length).toBe(before);
  });

  it('a schedule without a calendar connection writes nothing to any calendar', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const uuid = (await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '16:00') }).expect(201)).body.data.uuid;
    await kit.outboxDrained();
    expect(await eventRow(kit, uuid)).toBeUndefined();
    expect(eventsOf(uuid)).toEqual([]);
  });
});

describe('bookings waiting for approval', () => {
  // Another day than the other tests': they expect `day` free where these bookings go.
  const later = dayFromNow(12);

  it('with notify_calendar_owner `always` a pending booking is in the calendar, marked; approval confirms it, rejection deletes it; with `never` nothing until approved', async () => {
    const schedule = await makeSchedule(kit.api, { name: 'Dr. Vidal', calendar_connection_uuid: connection });
    await makeType(kit.api, schedule, { duration_minutes: 60 });
    const bookingAgent = (notify: string) =>
      activeAgent(kit.api, { appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule, approval: { require_approval: true, approval_for_create: true, notify_calendar_owner: notify } }] } });
    const requestByChat = async (agent: string, clock: string) => {
      model.reply({ toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(later, clock) } }] }, { content: 'Requested.' });
      await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: `At ${clock}?` }).expect(200);
      const [request] = (await kit.api.get(`/api/v1/appointment-requests?agent_uuid=${agent}&status=pending`).expect(200)).body.data.items;
      return request as { uuid: string; appointment_uuid: string };
    };

    const showing = await bookingAgent('always');
    const first = await requestByChat(showing, '09:00');
    expect(await syncedEvent(first.appointment_uuid)).toMatchObject({ summary: 'Dr. Vidal (pending approval)', start: { dateTime: madrid(later, '09:00') } });
    await kit.api.post(`/api/v1/appointment-requests/${first.uuid}/approve`).send({}).expect(200);
    expect(await syncedEvent(first.appointment_uuid, (event) => event.summary === 'Dr. Vidal')).toMatchObject({ status: 'confirmed' });
    expect(eventsOf(first.appointment_uuid)).toHaveLength(1);

    const second = await requestByChat(showing, '11:00');
    const pending = await syncedEvent(second.appointment_uuid);
    await kit.api.post(`/api/v1/appointment-requests/${second.uuid}/reject`).send({}).expect(200);
    await waitFor(() => google.state.eventOf(CALENDAR, pending.id)!, (found) => found.status === 'cancelled');

    const quiet = await bookingAgent('never');
    const third = await requestByChat(quiet, '13:00');
    // The request's own message is handled (no row: nothing written) before the approval's: on the
    // in-process bus a row leaves the outbox once every consumer handled it (delayed ones, e.g. the request's expiry, stay).
    await waitFor(() => dueOutboxRows(), (n) => n === 0);
    expect(eventsOf(third.appointment_uuid)).toEqual([]);
    await kit.api.post(`/api/v1/appointment-requests/${third.uuid}/approve`).send({}).expect(200);
    expect(await syncedEvent(third.appointment_uuid)).toMatchObject({ summary: 'Dr. Vidal' });
  });
});

describe('flowActionsRef: one action with a connection, outside any flow', () => {
  const asTenant = <T>(fn: () => Promise<T>) => runInContext({ tenant: kit.tenant }, fn);

  it('runs the action with the tenant’s connection and answers its output', async () => {
    const output = (await asTenant(() =>
      actions.run('google_calendar', 'find_free_busy', connection, { calendar_ids: ['primary'], time_min: madrid(day, '09:00'), time_max: madrid(day, '10:00') }),
    )) as { busy: unknown[] };
    expect(output).toMatchObject({ busy: [], time_min: madrid(day, '09:00') });
    expect(await asTenant(() => actions.connection(connection))).toEqual({ uuid: connection, app_uid: 'google_calendar', label: 'Dr. Ruiz’s calendar', status: 'connected' });
  });

  it('validates the input against the action’s schema first, and refuses another tenant’s connection and unknown actions', async () => {
    const posts = postsToEvents().length;
    const invalid = await asTenant(() => actions.run('google_calendar', 'create_event', connection, { calendar_id: 'primary', start: 'tomorrow' })).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(Object.keys((invalid as ValidationError).errors).sort()).toEqual(['input.end', 'input.start', 'input.summary']);
    expect(postsToEvents().length).toBe(posts);
    const other = await kit.createTenant();
    await expect(runInContext({ tenant: other.tenant }, () => actions.connection(connection))).resolves.toBeNull();
    await expect(runInContext({ tenant: other.tenant }, () => actions.run('google_calendar', 'find_free_busy', connection, { calendar_ids: ['primary'], time_min: madrid(day, '09:00'), time_max: madrid(day, '10:00') }))).rejects.toThrow(
      `App connection ${connection} does not exist`,
    );
    await expect(asTenant(() => actions.run('google_calendar', 'no_such_action', connection, {}))).rejects.toThrow('has no action "no_such_action"');
    await expect(asTenant(() => actions.run('notes_app', 'x', connection, {}))).rejects.toThrow('is not installed');
  });
});
