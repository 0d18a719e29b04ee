import { startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import { APPOINTMENT_PLUGINS, appointmentEventProbe, dayFromNow, madrid, makeSchedule, makeType } from './appointments-kit';

let kit: TestKernel;

const { plugin: probe, events } = appointmentEventProbe();

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...APPOINTMENT_PLUGINS, probe] });
});
afterAll(() => kit?.stop());

const day = dayFromNow(10);
const book = (type: string, startsAt: string, extra: Record<string, unknown> = {}) => kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: startsAt, ...extra });

describe('free slots', () => {
  it('lists the hours less the booked times and their buffers, in UTC with the local clock', async () => {
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: day, hours: [{ start: '09:00', end: '11:00' }] }] });
    const type = await makeType(kit.api, schedule, { duration_minutes: 30, buffer_after: 15 });
    const from = madrid(day, '00:00');
    const to = madrid(dayFromNow(11), '00:00');
    const slots = async () => (await kit.api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=${from}&to=${to}`).expect(200)).body.data;
    const before = await slots();
    expect(before.timezone).toBe('Europe/Madrid');
    expect(before.slots.map((slot: any) => slot.local_start.slice(11))).toEqual(['09:00', '09:30', '10:00', '10:30']);
    expect(before.slots[0].from).toBe(madrid(day, '09:00'));
    expect(before.slots[0].to).toBe(madrid(day, '09:30'));

    await book(type, madrid(day, '09:30')).expect(201);
    // 09:30-10:00 booked; a slot needs 15 min free after it, so 09:00 (ends 09:30, needs until 09:45) goes too; 10:00 keeps.
    expect((await slots()).slots.map((slot: any) => slot.local_start.slice(11))).toEqual(['10:00', '10:30']);
  });

  it('refuses a type of another schedule, an unknown zone, overlapping hours and bad dates with 422 at their paths', async () => {
    const one = await makeSchedule(kit.api);
    const other = await makeSchedule(kit.api);
    const type = await makeType(kit.api, other);
    const res = await kit.api.get(`/api/v1/schedules/${one}/slots?availability_type_uuid=${type}`).expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['availability_type_uuid']);
    const bad = await kit.api
      .post('/api/v1/schedules')
      .send({ name: 'x', timezone: 'Mars/Olympus', weekly_hours: { mon: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '13:00' }], tue: [{ start: '14:00', end: '10:00' }] }, exceptions: [{ date: '2027-02-30', closed: true }] })
      .expect(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['exceptions.0.date', 'timezone', 'weekly_hours.mon.1', 'weekly_hours.tue.0.end'].sort());
    expect((await kit.api.get('/api/v1/schedules').expect(200)).body.data.items.some((s: any) => s.name === 'x')).toBe(false);
  });

  it('a spring-forward day offers no slot at a local time that does not exist, a fall-back day offers the repeated hour twice', async () => {
    // Europe/Madrid, 2027: clocks go 02:00 -> 03:00 on 28 March, 03:00 -> 02:00 on 31 October.
    const schedule = await makeSchedule(kit.api, { weekly_hours: {}, exceptions: [{ date: '2027-03-28', hours: [{ start: '01:00', end: '04:00' }] }, { date: '2027-10-31', hours: [{ start: '01:00', end: '04:00' }] }] });
    const type = await makeType(kit.api, schedule, { duration_minutes: 60 });
    const spring = (await kit.api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=2027-03-27T12:00:00Z&to=2027-03-29T00:00:00Z`).expect(200)).body.data.slots;
    expect(spring).toEqual([
      { from: '2027-03-28T00:00:00.000Z', to: '2027-03-28T01:00:00.000Z', local_start: '2027-03-28T01:00', utc_offset: '+01:00' },
      { from: '2027-03-28T01:00:00.000Z', to: '2027-03-28T02:00:00.000Z', local_start: '2027-03-28T03:00', utc_offset: '+02:00' },
    ]);
    const autumn = (await kit.api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=2027-10-30T12:00:00Z&to=2027-11-01T00:00:00Z`).expect(200)).body.data.slots;
    expect(autumn.map((slot: any) => [slot.from, slot.local_start.slice(11), slot.utc_offset])).toEqual([
      ['2027-10-30T23:00:00.000Z', '01:00', '+02:00'],
      ['2027-10-31T00:00:00.000Z', '02:00', '+02:00'],
      ['2027-10-31T01:00:00.000Z', '02:00', '+01:00'],
      ['2027-10-31T02:00:00.000Z', '03:00', '+01:00'],
    ]);
  });
});

describe('booking', () => {
  it('books a free slot, announces it, and answers a taken time with 409 and the nearest free slots', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const created = await book(type, madrid(day, '10:00'), { notes: 'first visit', answers: { reason: 'toothache' } }).expect(201);
    expect(created.body.data).toMatchObject({
      schedule_uuid: schedule,
      availability_type_uuid: type,
      starts_at: madrid(day, '10:00'),
      ends_at: madrid(day, '10:30'),
      status: 'confirmed',
      timezone: 'Europe/Madrid',
      answers: { reason: 'toothache' },
    });
    const taken = await book(type, madrid(day, '10:00')).expect(409);
    expect(taken.body.message).toContain('taken');
    expect(taken.body.data.alternatives.map((slot: any) => slot.local_start.slice(11))).toEqual(['09:30', '10:30', '09:00']);
    // Not a slot start (slots step by the type's 30 minutes from 09:00), and outside the hours.
    await book(type, madrid(day, '10:10')).expect(409);
    await book(type, madrid(day, '18:00')).expect(409);
    await book(type, '2020-01-01T10:00:00Z').expect(422);
    const uuid = created.body.data.uuid;
    await waitFor(() => events.filter((event) => event.payload.appointment?.uuid === uuid), (found) => found.length === 1);
    expect(events.find((event) => event.payload.appointment?.uuid === uuid)).toMatchObject({ topic: 'appointments.booked', payload: { agent_uuid: null } });
  });

  it('ten concurrent bookings of one slot: exactly one 201, nine 409, one appointment', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const at = madrid(day, '11:00');
    const results = await Promise.all(Array.from({ length: 10 }, () => book(type, at)));
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const listed = (await kit.api.get(`/api/v1/appointments?schedule_uuid=${schedule}`).expect(200)).body.data;
    expect(listed.items).toHaveLength(1);
  });

  it('under load, bookings of overlapping times of two lengths never overlap', async () => {
    const schedule = await makeSchedule(kit.api);
    const short = await makeType(kit.api, schedule, { duration_minutes: 30 });
    const long = await makeType(kit.api, schedule, { duration_minutes: 90 });
    // 20 bookings at once, every half hour of 09:00-12:30, alternating lengths: many overlap each other. (Bookings of one
    // schedule run one at a time, queued in the process without a connection: booking-burst.test.ts.)
    const clocks = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30'];
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => book(index % 2 ? long : short, madrid(day, clocks[(index * 3) % clocks.length]))));
    expect(results.filter((res) => res.status !== 201 && res.status !== 409).map((res) => [res.status, res.body])).toEqual([]);
    const booked = (await kit.api.get(`/api/v1/appointments?schedule_uuid=${schedule}&per_page=100`).expect(200)).body.data.items;
    expect(booked.length).toBe(results.filter((res) => res.status === 201).length);
    expect(booked.length).toBeGreaterThan(1);
    const sorted = booked.map((a: any) => [Date.parse(a.starts_at), Date.parse(a.ends_at)]).sort((a: number[], b: number[]) => a[0] - b[0]);
    for (let index = 1; index < sorted.length; index++) expect(sorted[index][0]).toBeGreaterThanOrEqual(sorted[index - 1][1]);
  });

  it('cancel frees the time; reschedule moves it and keeps its length; a cancelled one cannot change', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule, { duration_minutes: 60 });
    const first = (await book(type, madrid(day, '09:00')).expect(201)).body.data.uuid;
    const second = (await book(type, madrid(day, '10:00')).expect(201)).body.data.uuid;
    // 10:00 is second's: moving first there is a 409; its own time is not in its way.
    await kit.api.post(`/api/v1/appointments/${first}/reschedule`).send({ starts_at: madrid(day, '10:00') }).expect(409);
    const moved = await kit.api.post(`/api/v1/appointments/${first}/reschedule`).send({ starts_at: madrid(day, '12:00') }).expect(200);
    expect(moved.body.data.ends_at).toBe(madrid(day, '13:00'));
    const cancelled = await kit.api.post(`/api/v1/appointments/${second}/cancel`).send({ reason: 'feeling better' }).expect(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', cancellation_reason: 'feeling better' });
    await kit.api.post(`/api/v1/appointments/${second}/cancel`).send({}).expect(409);
    await kit.api.post(`/api/v1/appointments/${second}/reschedule`).send({ starts_at: madrid(day, '14:00') }).expect(409);
    await book(type, madrid(day, '10:00')).expect(201);
    const topics = await waitFor(
      () => events.filter((event) => [first, second].includes(event.payload.appointment?.uuid)).map((event) => event.topic),
      (found) => found.length === 4,
    );
    expect(topics.sort()).toEqual(['appointments.booked', 'appointments.booked', 'appointments.cancelled', 'appointments.rescheduled']);
  });

  it('refuses another tenant’s contact and an unknown agent with 422, writing nothing', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const res = await book(type, madrid(day, '13:00'), { contact_uuid: '00000000-0000-4000-8000-000000000001', agent_uuid: '00000000-0000-4000-8000-000000000002' }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['agent_uuid', 'contact_uuid']);
    expect((await kit.api.get(`/api/v1/appointments?schedule_uuid=${schedule}`).expect(200)).body.data.items).toEqual([]);
  });

  it('a schedule with an upcoming appointment cannot be deleted; once it is cancelled it can, with its types', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const appointment = (await book(type, madrid(day, '15:00')).expect(201)).body.data.uuid;
    await kit.api.delete(`/api/v1/schedules/${schedule}`).expect(409);
    await kit.api.post(`/api/v1/appointments/${appointment}/cancel`).send({}).expect(200);
    await kit.api.delete(`/api/v1/schedules/${schedule}`).expect(200);
    await kit.api.get(`/api/v1/availability-types/${type}`).expect(404);
    await kit.api.get(`/api/v1/appointments/${appointment}`).expect(404);
  });
});
