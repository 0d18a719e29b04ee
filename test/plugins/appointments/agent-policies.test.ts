import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent } from '../runtime/runtime-test-kit';
import { APPOINTMENT_PLUGINS, dayFromNow, lastToolResult, madrid, madridLocal, makeSchedule, makeType, toolsOf } from './appointments-kit';

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: APPOINTMENT_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

let phone = 610_000_000;
/** A new conversation with a new contact; returns the turn. */
const chat = async (agent: string, message: string, conversation?: string) =>
  (
    await kit.api
      .post(`/api/v1/agents/${agent}/chat`)
      .send({ message, ...(conversation ? { conversation_uuid: conversation } : { contact: { name: 'Luis', phone_number: `+34${phone++}` } }) })
      .expect(200)
  ).body.data;

/** An agent with one assignment, and a conversation in which it booked `clock` on `date`: the appointment's uuid and the conversation. */
async function bookedBy(assignment: Record<string, unknown>, date: string, clock: string) {
  const schedule = await makeSchedule(kit.api);
  await makeType(kit.api, schedule, { duration_minutes: 60 });
  const agent = await activeAgent(kit.api, { appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule, ...assignment }] } });
  model.reply({ toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(date, clock) } }] }, { content: 'Booked.' });
  const turn = await chat(agent, 'Book it');
  const [appointment] = (await kit.api.get(`/api/v1/appointments?agent_uuid=${agent}`).expect(200)).body.data.items;
  return { agent, schedule, appointment, conversation: turn.conversation_uuid as string };
}

describe('slot rules', () => {
  it('offer_slots_from hides what is too soon to offer', async () => {
    const schedule = await makeSchedule(kit.api);
    await makeType(kit.api, schedule, { duration_minutes: 60 });
    const agent = await activeAgent(kit.api, { appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule, slot_rules: { offer_slots_from: '12_days', book_slots_from: '1_hours' } }] } });
    model.reply({ toolCalls: [{ name: 'find_slots', arguments: { from_date: dayFromNow(10), to_date: dayFromNow(14) } }] }, (request) => {
      const starts = lastToolResult(request).slots.map((slot: any) => Date.parse(slot.starts_at));
      expect(starts.length).toBeGreaterThan(0);
      expect(Math.min(...starts)).toBeGreaterThanOrEqual(Date.now() + 12 * 86_400_000 - 60_000);
      return { content: 'From day twelve.' };
    });
    await chat(agent, 'When?');
  });
});

describe('random assignment', () => {
  it('spreads the offered slots over the schedules with random_assignment; without it the first schedule takes each start', async () => {
    const first = await makeSchedule(kit.api, { name: 'First' });
    const second = await makeSchedule(kit.api, { name: 'Second' });
    // 30 minutes: 16 slots a day, of which find_slots offers 10.
    await makeType(kit.api, first, { duration_minutes: 30 });
    await makeType(kit.api, second, { duration_minutes: 30 });
    const schedulesOffered = async (random: boolean) => {
      const agent = await activeAgent(kit.api, { appointments: { enabled: true, random_assignment: random, schedule_assignments: [{ schedule_uuid: first }, { schedule_uuid: second }] } });
      let offered: string[] = [];
      model.reply(
        { toolCalls: [{ name: 'find_slots', arguments: { from_date: dayFromNow(10), to_date: dayFromNow(10) } }, { name: 'find_slots', arguments: { from_date: dayFromNow(11), to_date: dayFromNow(11) } }] },
        (request) => {
          const results = request.body.messages.filter((message: any) => message.role === 'tool').map((message: any) => JSON.parse(message.content));
          offered = results.flatMap((result: any) => result.slots.map((slot: any) => slot.schedule_uuid));
          return { content: 'Here are some times.' };
        },
      );
      await chat(agent, 'When?');
      return offered;
    };
    const fixed = await schedulesOffered(false);
    expect(fixed).toHaveLength(20);
    expect(new Set(fixed)).toEqual(new Set([first]));
    // 20 independent picks of one of two: all the same by chance once in about 500,000 runs.
    expect(new Set(await schedulesOffered(true))).toEqual(new Set([first, second]));
  });
});

describe('rescheduling', () => {
  it('policy never: no reschedule tool is offered', async () => {
    const { agent, conversation } = await bookedBy({ rescheduling: { policy: 'never' } }, dayFromNow(10), '10:00');
    model.reply((request) => {
      expect(toolsOf(request)).not.toHaveProperty('reschedule_appointment');
      return { content: 'I cannot move it.' };
    });
    await chat(agent, 'Move it', conversation);
  });

  it('min_rescheduling_notice refuses a move too close to the appointment', async () => {
    const { agent, appointment, conversation } = await bookedBy({ rescheduling: { min_rescheduling_notice: '30_days' } }, dayFromNow(10), '10:00');
    model.reply({ toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: appointment.uuid, starts_at: madridLocal(dayFromNow(10), '12:00') } }] }, (request) => {
      expect(lastToolResult(request)).toMatchObject({ rescheduled: false, reason: expect.stringContaining('too late') });
      return { content: 'Too late to move.' };
    });
    await chat(agent, 'Move it to noon', conversation);
    expect((await kit.api.get(`/api/v1/appointments/${appointment.uuid}`).expect(200)).body.data.starts_at).toBe(madrid(dayFromNow(10), '10:00'));
  });

  it('minor_changes_only: a small move is made, a big one needs a person (a request when approval is on)', async () => {
    const rules = { rescheduling: { policy: 'minor_changes_only', minor_change_hours: 3, minor_change_same_day: true, min_rescheduling_notice: '1_hours' } };
    const { agent, appointment, conversation } = await bookedBy(rules, dayFromNow(10), '10:00');
    model.reply(
      { toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: appointment.uuid, starts_at: madridLocal(dayFromNow(10), '12:00') } }] },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ rescheduled: true });
        return { toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: appointment.uuid, starts_at: madridLocal(dayFromNow(11), '12:00') } }] };
      },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ rescheduled: false, reason: expect.stringContaining('person') });
        return { content: 'Noon today is fine; another day needs the office.' };
      },
    );
    await chat(agent, 'Noon, or tomorrow', conversation);
    expect((await kit.api.get(`/api/v1/appointments/${appointment.uuid}`).expect(200)).body.data.starts_at).toBe(madrid(dayFromNow(10), '12:00'));

    const approving = await bookedBy({ ...rules, approval: { require_approval: true } }, dayFromNow(10), '15:00');
    model.reply(
      { toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: approving.appointment.uuid, starts_at: madridLocal(dayFromNow(12), '09:00') } }] },
      (request) => {
        expect(lastToolResult(request)).toMatchObject({ rescheduled: false, pending_approval: true });
        return { content: 'Requested.' };
      },
    );
    await chat(approving.agent, 'Another day please', approving.conversation);
    const [request] = (await kit.api.get(`/api/v1/appointment-requests?appointment_uuid=${approving.appointment.uuid}`).expect(200)).body.data.items;
    expect(request).toMatchObject({ kind: 'reschedule', status: 'pending', starts_at: madrid(dayFromNow(12), '09:00') });
    await kit.api.post(`/api/v1/appointment-requests/${request.uuid}/approve`).send({}).expect(200);
    expect((await kit.api.get(`/api/v1/appointments/${approving.appointment.uuid}`).expect(200)).body.data.starts_at).toBe(madrid(dayFromNow(12), '09:00'));
  });

  it('approving a reschedule whose time was taken meanwhile is a 409 and the request stays pending', async () => {
    const { agent, appointment, conversation } = await bookedBy({ approval: { require_approval: true, approval_for_reschedule: true } }, dayFromNow(10), '10:00');
    model.reply({ toolCalls: [{ name: 'reschedule_appointment', arguments: { appointment_uuid: appointment.uuid, starts_at: madridLocal(dayFromNow(10), '14:00') } }] }, { content: 'Requested.' });
    await chat(agent, 'At two?', conversation);
    const [request] = (await kit.api.get(`/api/v1/appointment-requests?appointment_uuid=${appointment.uuid}`).expect(200)).body.data.items;
    await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: appointment.availability_type_uuid, starts_at: madrid(dayFromNow(10), '14:00') }).expect(201);
    const res = await kit.api.post(`/api/v1/appointment-requests/${request.uuid}/approve`).send({}).expect(409);
    expect(res.body.data.alternatives.length).toBeGreaterThan(0);
    expect((await kit.api.get(`/api/v1/appointment-requests/${request.uuid}`).expect(200)).body.data.status).toBe('pending');
  });
});

describe('cancellation and approval threshold', () => {
  it('no cancel tool without ai_can_cancel; min_cancellation_notice refuses a late one', async () => {
    const plain = await bookedBy({}, dayFromNow(10), '10:00');
    model.reply((request) => {
      expect(toolsOf(request)).not.toHaveProperty('cancel_appointment');
      expect(toolsOf(request)).toHaveProperty('reschedule_appointment');
      return { content: 'Please call the office to cancel.' };
    });
    await chat(plain.agent, 'Cancel it', plain.conversation);

    const strict = await bookedBy({ cancellation: { ai_can_cancel: true, require_cancellation_reason: false, min_cancellation_notice: '30_days' } }, dayFromNow(10), '11:00');
    model.reply({ toolCalls: [{ name: 'cancel_appointment', arguments: { appointment_uuid: strict.appointment.uuid } }] }, (request) => {
      expect(lastToolResult(request)).toMatchObject({ cancelled: false, reason: expect.stringContaining('too late') });
      return { content: 'Too late to cancel.' };
    });
    await chat(strict.agent, 'Cancel it', strict.conversation);
    expect((await kit.api.get(`/api/v1/appointments/${strict.appointment.uuid}`).expect(200)).body.data.status).toBe('confirmed');
  });

  it('approval_threshold: a booking closer than the threshold needs approval even without approval_for_create', async () => {
    const near = await bookedBy({ approval: { require_approval: true, approval_for_create: false, approval_threshold: '20_days' } }, dayFromNow(10), '10:00');
    expect(near.appointment.status).toBe('pending_approval');
    const far = await bookedBy({ approval: { require_approval: true, approval_for_create: false, approval_threshold: '2_days' } }, dayFromNow(10), '10:00');
    expect(far.appointment.status).toBe('confirmed');
  });
});

describe('approval for notes', () => {
  it('with approval_for_notes a booking that carries notes waits for a person; one without notes does not', async () => {
    const schedule = await makeSchedule(kit.api);
    await makeType(kit.api, schedule, { duration_minutes: 60 });
    const agent = await activeAgent(kit.api, { appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule, approval: { require_approval: true, approval_for_notes: true } }] } });
    model.reply(
      { toolCalls: [{ name: 'book_appointment', arguments: { starts_at: madridLocal(dayFromNow(10), '10:00'), notes: 'Wants the last dentist' } }, { name: 'book_appointment', arguments: { starts_at: madridLocal(dayFromNow(10), '12:00') } }] },
      { content: 'Done.' },
    );
    await chat(agent, 'Two visits');
    const booked = (await kit.api.get(`/api/v1/appointments?agent_uuid=${agent}`).expect(200)).body.data.items;
    expect(booked.map((a: any) => [a.starts_at, a.status])).toEqual([
      [madrid(dayFromNow(10), '10:00'), 'pending_approval'],
      [madrid(dayFromNow(10), '12:00'), 'confirmed'],
    ]);
  });
});

describe('a schedule agents book into', () => {
  it('cannot be deleted while an agent assigns it (409 naming the agent); once taken out of the agent, it can', async () => {
    const schedule = await makeSchedule(kit.api);
    const agent = await activeAgent(kit.api, { name: 'Front desk', appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule }] } });
    const refused = await kit.api.delete(`/api/v1/schedules/${schedule}`).expect(409);
    expect(refused.body.message).toContain(`Front desk ${agent}`);
    await kit.api.put(`/api/v1/agents/${agent}`).send({ appointments: { schedule_assignments: [] } }).expect(200);
    await kit.api.delete(`/api/v1/schedules/${schedule}`).expect(200);
  });
});

describe('tenants', () => {
  it('an agent cannot be given another tenant’s schedule', async () => {
    const other = await kit.createTenant();
    const theirs = await makeSchedule(other.api);
    const res = await kit.api.post('/api/v1/agents').send({ name: 'x', appointments: { schedule_assignments: [{ schedule_uuid: theirs }] } }).expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['appointments.schedule_assignments.0.schedule_uuid']);
  });
});
