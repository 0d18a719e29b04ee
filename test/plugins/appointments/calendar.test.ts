import { definePlugin } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { contributeScheduleCalendar, type ScheduleCalendar } from '../../../plugins/appointments';
import { APPOINTMENT_PLUGINS, dayFromNow, madrid, makeSchedule, makeType } from './appointments-kit';

const CONNECTION = '00000000-0000-4000-8000-00000000ca1e';
const day = dayFromNow(10);

/** A calendar standing in for the link plugin: one meeting 10:00-11:00 on `day`, or down. */
const calendar = {
  down: false,
  asked: [] as { from: Date; to: Date }[],
  /** Events beyond the meeting: what the calendar link would have written for our own appointments. */
  events: [] as { start: Date; end: Date }[],
};
const fakeCalendar: ScheduleCalendar = {
  async check(_em, connectionUuid) {
    return connectionUuid === CONNECTION ? null : 'is not a calendar connection of this tenant';
  },
  async busy(_connectionUuid, from, to) {
    calendar.asked.push({ from, to });
    if (calendar.down) throw new Error('calendar server answered 503');
    return [{ start: new Date(madrid(day, '10:00')), end: new Date(madrid(day, '11:00')) }, ...calendar.events];
  },
};
const calendarPlugin = definePlugin({ id: 'fake-calendar', dependsOn: ['appointments'], ...contributeScheduleCalendar(fakeCalendar) });

let kit: TestKernel;
let bare: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...APPOINTMENT_PLUGINS, calendarPlugin] });
  bare = await startTestKernel({ plugins: APPOINTMENT_PLUGINS, tenant: 'bare' });
});
afterAll(async () => {
  await kit?.stop();
  await bare?.stop();
});
afterEach(() => {
  calendar.down = false;
  calendar.events = [];
});

const slotsOf = (schedule: string, type: string) =>
  kit.api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=${madrid(day, '00:00')}&to=${madrid(dayFromNow(11), '00:00')}`);

describe('a schedule’s calendar', () => {
  it('its busy times block slots and bookings', async () => {
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: day, hours: [{ start: '09:00', end: '12:00' }] }], calendar_connection_uuid: CONNECTION });
    const type = await makeType(kit.api, schedule, { duration_minutes: 30 });
    const slots = (await slotsOf(schedule, type).expect(200)).body.data.slots;
    expect(slots.map((slot: any) => slot.local_start.slice(11))).toEqual(['09:00', '09:30', '11:00', '11:30']);
    const taken = await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '10:30') }).expect(409);
    expect(taken.body.data.alternatives.map((slot: any) => slot.local_start.slice(11))).toEqual(['11:00', '09:30', '11:30']);
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '11:00') }).expect(201);
  });

  it('moving an appointment, its own event in the calendar is not in its way; a meeting still is', async () => {
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: day, hours: [{ start: '09:00', end: '13:00' }] }], calendar_connection_uuid: CONNECTION });
    // 15 minutes kept free after: 11:00 needs 11:00-11:45, which the appointment's own 11:30-12:00 overlaps.
    const type = await makeType(kit.api, schedule, { duration_minutes: 30, buffer_after: 15 });
    const booked = (await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '11:30') }).expect(201)).body.data;
    calendar.events = [{ start: new Date(booked.starts_at), end: new Date(booked.ends_at) }];
    await kit.api.post(`/api/v1/appointments/${booked.uuid}/reschedule`).send({ starts_at: madrid(day, '11:00') }).expect(200);
    calendar.events = [{ start: new Date(madrid(day, '11:00')), end: new Date(madrid(day, '11:30')) }];
    // 10:00 is the meeting's.
    await kit.api.post(`/api/v1/appointments/${booked.uuid}/reschedule`).send({ starts_at: madrid(day, '10:30') }).expect(409);
  });

  it('a calendar that cannot be read answers 502 and books nothing', async () => {
    const schedule = await makeSchedule(kit.api, { calendar_connection_uuid: CONNECTION });
    const type = await makeType(kit.api, schedule);
    calendar.down = true;
    expect((await slotsOf(schedule, type).expect(502)).body.message).toContain('calendar server answered 503');
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '15:00') }).expect(502);
    calendar.down = false;
    expect((await kit.api.get(`/api/v1/appointments?schedule_uuid=${schedule}`).expect(200)).body.data.items).toEqual([]);
  });

  it('a schedule without a connection never asks the calendar', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const before = calendar.asked.length;
    await slotsOf(schedule, type).expect(200);
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '15:00') }).expect(201);
    expect(calendar.asked.length).toBe(before);
  });

  it('the provider checks the connection (422 at its path); without a provider every connection is refused', async () => {
    const refused = await kit.api.post('/api/v1/schedules').send({ name: 'x', timezone: 'UTC', calendar_connection_uuid: '00000000-0000-4000-8000-000000000bad' }).expect(422);
    expect(refused.body.errors).toEqual({ calendar_connection_uuid: ['is not a calendar connection of this tenant'] });
    const bareRefused = await bare.api.post('/api/v1/schedules').send({ name: 'x', timezone: 'UTC', calendar_connection_uuid: CONNECTION }).expect(422);
    expect(bareRefused.body.errors.calendar_connection_uuid[0]).toContain('appointments-calendar');
  });
});
