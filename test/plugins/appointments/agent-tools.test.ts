import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent } from '../runtime/runtime-test-kit';
import { APPOINTMENT_PLUGINS, appointmentEventProbe, dayFromNow, lastToolResult, madrid, madridLocal, makeSchedule, makeType, toolsOf } from './appointments-kit';

let model: FakeLlmServer;
let kit: TestKernel;
const { plugin: probe, events } = appointmentEventProbe();

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: [...APPOINTMENT_PLUGINS, probe], config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const day = dayFromNow(10);
let phone = 600_000_000;
const chat = (agent: string, message: string, conversation?: string) =>
  kit.api
    .post(`/api/v1/agents/${agent}/chat`)
    .send({ message, ...(conversation ? { conversation_uuid: conversation } : { contact: { name: 'Ana', phone_number: `+34${phone++}` } }) })
    .expect(200);
const appointmentsOf = async (query: string) => (await kit.api.get(`/api/v1/appointments?${query}`).expect(200)).body.data.items;

/** An active agent booking into `schedules` (in order); `assignment` is merged into each assignment. */
async function bookingAgent(schedules: string[], assignment: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Promise<string> {
  return activeAgent(kit.api, {
    appointments: { enabled: true, ...top, schedule_assignments: schedules.map((schedule_uuid) => ({ schedule_uuid, ...assignment })) },
  });
}

describe('the agent’s appointments configuration', () => {
  it('refuses a schedule that is not the tenant’s with 422 at its path, and the same schedule twice', async () => {
    const schedule = await makeSchedule(kit.api);
    const res = await kit.api
      .post('/api/v1/agents')
      .send({ name: 'x', appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule }, { schedule_uuid: '00000000-0000-4000-8000-000000000009' }, { schedule_uuid: schedule }] } })
      .expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['appointments.schedule_assignments.1.schedule_uuid', 'appointments.schedule_assignments.2.schedule_uuid']);
  });

  it('offers no appointment tool when appointments are not enabled', async () => {
    const schedule = await makeSchedule(kit.api);
    await makeType(kit.api, schedule);
    const agent = await activeAgent(kit.api, { appointments: { enabled: false, schedule_assignments: [{ schedule_uuid: schedule }] } });
    model.reply({ content: 'Hello!' });
    await chat(agent, 'Hi');
    expect(Object.keys(toolsOf(model.requests.at(-1)!))).not.toContain('find_slots');
  });
});

describe('booking by chat', () => {
  it('finds slots, books one with the answers, then moves it and cancels it with a reason', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    const agent = await bookingAgent([schedule], {
      cancellation: { ai_can_cancel: true, require_cancellation_reason: true, min_cancellation_notice: '1_hours' },
      questions: { inherit_from_schedule: false, custom_questions: [{ name: 'reason', type: 'text', description: 'Why they come', required: true }] },
    });

    let offered: any[] = [];
    model.reply(
      (request) => {
        const tools = toolsOf(request);
        expect(Object.keys(tools)).toEqual(expect.arrayContaining(['find_slots', 'book_appointment']));
        expect(tools).not.toHaveProperty('cancel_appointment');
        expect(tools.book_appointment.parameters.properties.answers.required).toEqual(['reason']);
        return { toolCalls: [{ name: 'find_slots', arguments: { from_date: day, to_date: day } }] };
      },
      (request) => {
        offered = lastToolResult(request).slots;
        return { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: offered[2].starts_at, answers: { reason: 'cleaning' } } }] };
      },
      (request) => ({ content: lastToolResult(request).booked ? 'You are booked.' : 'Sorry.' }),
    );
    const first = (await chat(agent, `I need a check-up on ${day}`)).body.data;
    expect(first.reply.content).toBe('You are booked.');
    expect(first.tool_calls.map((call: any) => [call.name, call.status])).toEqual([
      ['find_slots', 'ok'],
      ['book_appointment', 'ok'],
    ]);
    expect(offered.slice(0, 3).map((slot) => slot.starts_at)).toEqual([madridLocal(day, '09:00'), madridLocal(day, '09:30'), madridLocal(day, '10:00')]);
    const [booked] = await appointmentsOf(`schedule_uuid=${schedule}`);
    expect(booked).toMatchObject({ starts_at: madrid(day, '10:00'), status: 'confirmed', agent_uuid: agent, conversation_uuid: first.conversation_uuid, availability_type_uuid: type, answers: { reason: 'cleaning' } });
    expect(booked.contact_uuid).toEqual(expect.any(String));

    model.reply(
      (request) => {
        const tools = toolsOf(request);
        expect(tools.reschedule_appointment.parameters.properties.appointment_uuid.enum).toEqual([booked.uuid]);
        expect(tools.cancel_appointment.parameters.required).toEqual(['appointment_uuid', 'reason']);
        return { toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: booked.uuid, starts_at: madridLocal(day, '15:00') } }] };
      },
      (request) => ({ content: lastToolResult(request).rescheduled ? 'Moved to 15:00.' : 'Could not move it.' }),
    );
    expect((await chat(agent, 'Can we make it 15:00?', first.conversation_uuid)).body.data.reply.content).toBe('Moved to 15:00.');
    expect((await kit.api.get(`/api/v1/appointments/${booked.uuid}`).expect(200)).body.data).toMatchObject({ starts_at: madrid(day, '15:00'), ends_at: madrid(day, '15:30') });

    model.reply(
      { toolCalls: [{ name: 'cancel_appointment', arguments: { appointment_uuid: booked.uuid } }] },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ cancelled: false, reason_required: true });
        return { toolCalls: [{ name: 'cancel_appointment', arguments: { appointment_uuid: booked.uuid, reason: 'travelling' } }] };
      },
      (request) => ({ content: lastToolResult(request).cancelled ? 'Cancelled.' : 'Not cancelled.' }),
    );
    expect((await chat(agent, 'Actually cancel it', first.conversation_uuid)).body.data.reply.content).toBe('Cancelled.');
    expect((await kit.api.get(`/api/v1/appointments/${booked.uuid}`).expect(200)).body.data).toMatchObject({ status: 'cancelled', cancellation_reason: 'travelling' });

    const topics = await waitFor(
      () => events.filter((event) => event.payload.appointment?.uuid === booked.uuid).map((event) => [event.topic, event.payload.agent_uuid]),
      (found) => found.length === 3,
    );
    expect(topics).toEqual([
      ['appointments.booked', agent],
      ['appointments.rescheduled', agent],
      ['appointments.cancelled', agent],
    ]);
  });

  it('a taken time gives the model alternatives by the assignment’s rules; missing answers are asked for', async () => {
    const schedule = await makeSchedule(kit.api);
    const type = await makeType(kit.api, schedule);
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '12:00') }).expect(201);
    const agent = await bookingAgent([schedule], {
      slot_rules: { alternative_slots_count: 2, suggestion_priority: 'nearest', prefer_same_time_slot: true },
      questions: { inherit_from_schedule: true, custom_questions: [] },
    });
    await kit.api.patch(`/api/v1/schedules/${schedule}`).send({ questions: [{ name: 'insurer', type: 'text', description: 'Their insurance', required: true }] }).expect(200);
    model.reply(
      { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '12:00') } }] },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ booked: false, missing_answers: [{ name: 'insurer' }] });
        return { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '12:00'), answers: { insurer: 'Sanitas' } } }] };
      },
      (request) => {
        const result = lastToolResult(request);
        expect(result.booked).toBe(false);
        // The same local time on other days first (prefer_same_time_slot), nearest first, the earlier of a tie first.
        expect(result.alternatives).toEqual([madridLocal(dayFromNow(9), '12:00'), madridLocal(dayFromNow(11), '12:00')]);
        return { content: 'That time is taken.' };
      },
    );
    await chat(agent, 'Noon please');
    expect(await appointmentsOf(`schedule_uuid=${schedule}`)).toHaveLength(1);
  });

  it('keeps max_appointments_per_day and book_slots_from', async () => {
    const full = await makeSchedule(kit.api);
    const type = await makeType(kit.api, full);
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '09:00') }).expect(201);
    const agent = await bookingAgent([full], { slot_rules: { max_appointments_per_day: 1, book_slots_from: '1_hours', offer_slots_from: '1_hours' } });
    model.reply(
      { toolCalls: [{ name: 'find_slots', arguments: { from_date: day, to_date: day } }] },
      (request) => {
        expect(lastToolResult(request).slots).toEqual([]);
        return { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '14:00') } }] };
      },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ booked: false, reason: expect.stringContaining('day') });
        return { content: 'That day is full.' };
      },
    );
    await chat(agent, 'Any time that day?');

    const far = await makeSchedule(kit.api);
    await makeType(kit.api, far);
    const picky = await bookingAgent([far], { slot_rules: { book_slots_from: '30_days', offer_slots_from: '1_hours' } });
    model.reply(
      { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '14:00') } }] },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ booked: false, reason: expect.stringContaining('earliest') });
        return { content: 'Too soon.' };
      },
    );
    await chat(picky, 'In ten days?');
    expect(await appointmentsOf(`schedule_uuid=${far}`)).toEqual([]);
  });

  it('books into the first assigned schedule with that time free', async () => {
    const first = await makeSchedule(kit.api, { name: 'First' });
    const second = await makeSchedule(kit.api, { name: 'Second' });
    const firstType = await makeType(kit.api, first);
    await makeType(kit.api, second);
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: firstType, starts_at: madrid(day, '16:00') }).expect(201);
    const agent = await bookingAgent([first, second]);
    model.reply({ toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '15:00') } }, { name: 'book_appointment', arguments: { starts_at: madridLocal(day, '16:00') } }] }, { content: 'Both booked.' });
    await chat(agent, 'Two visits please');
    expect((await appointmentsOf(`agent_uuid=${agent}`)).map((a: any) => [a.schedule_uuid, a.starts_at])).toEqual([
      [first, madrid(day, '15:00')],
      [second, madrid(day, '16:00')],
    ]);
  });
});

describe('approval', () => {
  it('a booking that needs approval holds the time pending; approving confirms it, rejecting frees it', async () => {
    const schedule = await makeSchedule(kit.api);
    await makeType(kit.api, schedule);
    const agent = await bookingAgent([schedule], { approval: { require_approval: true, approval_for_create: true, expected_response_time: '30_min' } });
    model.reply({ toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '09:00') } }, { name: 'book_appointment', arguments: { starts_at: madridLocal(day, '11:00') } }] }, (request) => {
      expect(lastToolResult(request)).toMatchObject({ booked: false, pending_approval: true, expected_response_time: '30_min' });
      return { content: 'Requested; we will confirm.' };
    });
    await chat(agent, 'Book me twice');
    const pending = await appointmentsOf(`agent_uuid=${agent}`);
    expect(pending.map((a: any) => a.status)).toEqual(['pending_approval', 'pending_approval']);
    const requests = (await kit.api.get(`/api/v1/appointment-requests?agent_uuid=${agent}&status=pending`).expect(200)).body.data.items;
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ kind: 'create', status: 'pending', expected_response_by: expect.any(String) });
    // A held time is not free for anyone else.
    const type = pending[0].availability_type_uuid;
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '09:00') }).expect(409);

    const byAppointment = (uuid: string) => requests.find((request: any) => request.appointment_uuid === uuid);
    const approved = await kit.api.post(`/api/v1/appointment-requests/${byAppointment(pending[0].uuid).uuid}/approve`).send({ note: 'ok' }).expect(200);
    expect(approved.body.data).toMatchObject({ request: { status: 'approved', decision_note: 'ok' }, appointment: { status: 'confirmed' } });
    await kit.api.post(`/api/v1/appointment-requests/${byAppointment(pending[0].uuid).uuid}/reject`).send({}).expect(409);
    const rejected = await kit.api.post(`/api/v1/appointment-requests/${byAppointment(pending[1].uuid).uuid}/reject`).send({ note: 'fully booked' }).expect(200);
    expect(rejected.body.data.appointment).toMatchObject({ status: 'cancelled', cancellation_reason: 'request rejected: fully booked' });
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '11:00') }).expect(201);
    const requestEvents = await waitFor(
      () => events.filter((event) => event.topic === 'appointments.request_created' && event.payload.agent_uuid === agent),
      (found) => found.length === 2,
    );
    expect(requestEvents[0].payload.request).toMatchObject({ kind: 'create', status: 'pending' });
  });

  it('a cancellation that needs approval waits; approving it cancels the appointment', async () => {
    const schedule = await makeSchedule(kit.api);
    await makeType(kit.api, schedule);
    const agent = await bookingAgent([schedule], {
      cancellation: { ai_can_cancel: true, require_cancellation_reason: false, min_cancellation_notice: '1_hours' },
      approval: { require_approval: true, approval_for_cancel: true },
    });
    model.reply({ toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(day, '13:00') } }] }, { content: 'Booked.' });
    const conversation = (await chat(agent, 'Book 13:00')).body.data.conversation_uuid;
    const [appointment] = await appointmentsOf(`agent_uuid=${agent}`);
    expect(appointment.status).toBe('confirmed');
    model.reply({ toolCalls: [{ name: 'cancel_appointment', arguments: { appointment_uuid: appointment.uuid } }] }, { content: 'Asked.' });
    await chat(agent, 'Cancel it', conversation);
    expect((await kit.api.get(`/api/v1/appointments/${appointment.uuid}`).expect(200)).body.data.status).toBe('confirmed');
    const [request] = (await kit.api.get(`/api/v1/appointment-requests?appointment_uuid=${appointment.uuid}`).expect(200)).body.data.items;
    expect(request).toMatchObject({ kind: 'cancel', status: 'pending' });
    await kit.api.post(`/api/v1/appointment-requests/${request.uuid}/approve`).send({}).expect(200);
    expect((await kit.api.get(`/api/v1/appointments/${appointment.uuid}`).expect(200)).body.data.status).toBe('cancelled');
  });
});
