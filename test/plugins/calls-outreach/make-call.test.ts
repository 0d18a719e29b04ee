import path from 'node:path';
import { waitFor } from '../../../core/testing';
import { activeAgent } from '../runtime/runtime-test-kit';
import { callOf, callingAgent, startCallsKit, type CallsKit } from '../calls/calls-kit';

const OUTREACH = ['outreach', 'calls-outreach'].map((id) => path.resolve(__dirname, '../../../plugins', id));

let kit: CallsKit;

beforeAll(async () => {
  kit = await startCallsKit({ plugins: OUTREACH });
});
afterAll(() => kit?.stop());

let nextNumber = 700000000;
/** A new callee number for each contact, so scripts and calls of one test never meet another's. */
const callee = () => `+34${nextNumber++}`;

async function contact(body: Record<string, unknown>): Promise<string> {
  return (await kit.kit.api.post('/api/v1/contacts').send({ name: 'Ana', ...body }).expect(201)).body.data.uuid;
}

const taskOf = async (uuid: string) => (await kit.kit.api.get(`/api/v1/tasks/${uuid}`).expect(200)).body.data;
const taskWhere = (uuid: string, done: (task: any) => boolean) => waitFor(() => taskOf(uuid), done);
const callsTo = (to: string) => kit.twilio.state.calls.filter((call) => call.to === to);
/** The n-th call (1-based) placed to `to`, once it ended and its callbacks were answered. */
const endedCallTo = async (to: string, n = 1) => kit.twilio.ended(await kit.twilio.waitFor((state) => state.calls.filter((call) => call.to === to)[n - 1]?.sid));

/** A fixed-offset zone where the local time now is about `hour` o'clock (Etc/GMT signs are inverted). */
function zoneAt(hour: number): string {
  let offset = hour - new Date().getUTCHours();
  if (offset < -12) offset += 24;
  if (offset > 14) offset -= 24;
  return offset === 0 ? 'Etc/UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** A rule every day from 09:00 to 18:00 in the contact's time zone, with no gap between tasks. */
const officeHours = async () =>
  (await kit.kit.api.post('/api/v1/rules').send({ name: 'Office hours', weekdays: [1, 2, 3, 4, 5, 6, 7], start_time: '09:00', end_time: '18:00', min_gap_minutes: 0 }).expect(201)).body
    .data.uuid as string;

async function callCampaign(agent: string, contacts: string[]): Promise<string> {
  const rule = await officeHours();
  const campaign = (await kit.kit.api.post('/api/v1/campaigns').send({ name: 'Recalls', agent_uuid: agent, task_type: 'make_call', rule_uuids: [rule] }).expect(201)).body.data.uuid;
  const pool = (await kit.kit.api.post('/api/v1/pools').send({ campaign_uuid: campaign, name: 'Patients' }).expect(201)).body.data.uuid;
  await kit.kit.api.post(`/api/v1/pools/${pool}/contacts`).send({ contact_uuids: contacts }).expect(200);
  await kit.kit.api.post(`/api/v1/campaigns/${campaign}/activate`).expect(200);
  return campaign;
}

async function campaignTask(campaign: string, contactUuid: string): Promise<any> {
  return waitFor(
    async () => ((await kit.kit.api.get(`/api/v1/tasks?contact_uuid=${contactUuid}&per_page=100`).expect(200)).body.data.items as any[]).find((task) => task.campaign_uuid === campaign),
    (task) => task !== undefined,
  );
}

describe('make_call tasks', () => {
  it('places the call with the task in its metadata and completes the task when the contact answers', async () => {
    const { agent, number } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hello, this is the clinic.' } });
    const to = callee();
    const person = await contact({ phone_number: to });
    kit.twilio.script(to, { answer: 'human', steps: [{ say: 'Yes, that works' }, { hangup: true }] });

    const created = await kit.kit.api.post('/api/v1/tasks').send({ type: 'make_call', agent_uuid: agent, contact_uuid: person, title: 'Confirm' }).expect(201);
    const uuid = created.body.data.uuid as string;
    const played = await endedCallTo(to);
    expect(played.request.From).toBe(number);
    expect(played.said.map((line) => line.text)).toEqual(['Hello, this is the clinic.', 'You said: Yes, that works']);

    const task = await taskWhere(uuid, (t) => t.status === 'completed');
    expect(task).toMatchObject({ attempts: 1, last_error: null, result: { ended_reason: 'completed', to, from: number } });
    const call = await callOf(kit, task.result.conversation_uuid);
    expect(call).toMatchObject({ call_uuid: task.result.call_uuid, contact_uuid: person, status: 'ended', metadata: { task_uuid: uuid, task_attempt: 1 } });
  });

  it('a busy line fails the attempt; a voicemail completes the task unless task_data.voicemail is retry', async () => {
    const { agent } = await callingAgent(kit);
    const busy = callee();
    const machine = callee();
    kit.twilio.script(busy, { answer: 'busy' });
    kit.twilio.script(machine, { answer: 'machine' });
    const once = { type: 'make_call', agent_uuid: agent, max_retry_attempts: 0 };
    const busyTask = (await kit.kit.api.post('/api/v1/tasks').send({ ...once, contact_uuid: await contact({ phone_number: busy }) }).expect(201)).body.data.uuid;
    const machinePerson = await contact({ phone_number: machine });
    const voicemailTask = (await kit.kit.api.post('/api/v1/tasks').send({ ...once, contact_uuid: machinePerson }).expect(201)).body.data.uuid;
    const retriedTask = (await kit.kit.api.post('/api/v1/tasks').send({ ...once, contact_uuid: machinePerson, task_data: { voicemail: 'retry' } }).expect(201)).body.data.uuid;

    expect(await taskWhere(busyTask, (t) => t.status === 'failed')).toMatchObject({ attempts: 1, last_error: expect.stringContaining('the call ended busy') });
    expect(await taskWhere(voicemailTask, (t) => t.status === 'completed')).toMatchObject({ attempts: 1, result: { ended_reason: 'voicemail' } });
    expect(await taskWhere(retriedTask, (t) => t.status === 'failed')).toMatchObject({ attempts: 1, last_error: expect.stringContaining('the call ended voicemail') });
  });

  it('refuses (422) a task whose agent cannot call, whose contact has no number, or whose task_data is wrong', async () => {
    const { agent } = await callingAgent(kit);
    const withPhone = await contact({ phone_number: callee() });
    const errorsOf = async (body: Record<string, unknown>) => {
      const res = await kit.kit.api.post('/api/v1/tasks').send({ type: 'make_call', ...body });
      expect(res.status).toBe(422);
      return res.body.errors as Record<string, string[]>;
    };

    const pending = (await kit.kit.api.post('/api/v1/agents').send({ name: 'Not yet' }).expect(201)).body.data.agent_uuid;
    expect(await errorsOf({ agent_uuid: pending, contact_uuid: withPhone })).toMatchObject({ agent_uuid: expect.arrayContaining([expect.stringContaining('not active')]) });
    const noLine = await activeAgent(kit.kit.api);
    expect(await errorsOf({ agent_uuid: noLine, contact_uuid: withPhone })).toEqual({ agent_uuid: [expect.stringContaining('`phone` channel'), expect.stringContaining('phone number that takes calls')] });

    expect(await errorsOf({ agent_uuid: agent, contact_uuid: await contact({ email: 'ana@example.com' }) })).toEqual({ contact_uuid: ['the contact has no phone_number to call'] });
    expect(await errorsOf({ agent_uuid: agent, contact: { email: 'bea@example.com' } })).toEqual({ 'contact.phone_number': [expect.stringContaining('make_call')] });
    expect(await errorsOf({ agent_uuid: agent, contact_uuid: withPhone, task_data: { from: '+15005550000', voicemail: 'hang up' } })).toEqual({
      'task_data.from': ['is not an active number of the agent that takes calls'],
      'task_data.voicemail': ['must be one of complete, retry'],
    });
  });
});

describe('campaigns of calls', () => {
  it('retries a contact whose first call went unanswered, then completes the task when the retry is answered', async () => {
    const { agent } = await callingAgent(kit);
    const to = callee();
    const person = await contact({ phone_number: to, timezone: zoneAt(13) });
    kit.twilio.script(to, { answer: 'no-answer' });
    const campaign = await callCampaign(agent, [person]);

    expect((await endedCallTo(to, 1)).status).toBe('no-answer');
    const { uuid } = await campaignTask(campaign, person);
    const waiting = await taskWhere(uuid, (t) => t.status === 'scheduled' && t.attempts === 1);
    expect(waiting.last_error).toContain('the call ended no_answer');
    // The task's retry strategy (campaign tasks: fixed, 60 minutes) put the retry an hour away.
    expect(new Date(waiting.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    kit.twilio.script(to, { answer: 'human', steps: [{ say: 'Sorry, I missed you' }, { hangup: true }] });
    // Brought forward through the API, as an operator would.
    await kit.kit.api.patch(`/api/v1/tasks/${uuid}`).send({ scheduled_at: new Date(Date.now() + 1000).toISOString() }).expect(200);
    expect((await endedCallTo(to, 2)).status).toBe('completed');
    const done = await taskWhere(uuid, (t) => t.status === 'completed');
    expect(done).toMatchObject({ attempts: 2, last_error: null, result: { ended_reason: 'completed' } });
    expect(callsTo(to)).toHaveLength(2);
  });

  it('calls within the rule’s window in each contact’s time zone: a contact whose window is closed waits for it', async () => {
    const { agent } = await callingAgent(kit);
    const [open, closed] = [callee(), callee()];
    const openZone = zoneAt(13);
    const closedZone = zoneAt(3);
    const reachable = await contact({ phone_number: open, timezone: openZone });
    const asleep = await contact({ phone_number: closed, timezone: closedZone });
    kit.twilio.script(open, { answer: 'human', steps: [{ hangup: true }] });
    kit.twilio.script(closed, { answer: 'human', steps: [{ hangup: true }] });
    const campaign = await callCampaign(agent, [reachable, asleep]);

    const called = await campaignTask(campaign, reachable);
    expect(await taskWhere(called.uuid, (t) => t.status === 'completed')).toMatchObject({ attempts: 1 });

    const held = await campaignTask(campaign, asleep);
    const waiting = await taskWhere(held.uuid, (t) => t.next_attempt_at !== null && new Date(t.next_attempt_at).getTime() > Date.now() + 60 * 60_000);
    expect(waiting).toMatchObject({ status: 'scheduled', attempts: 0 });
    // Postponed to 09:00 in the contact's zone: the window's opening, not now.
    const opens = new Intl.DateTimeFormat('en-GB', { timeZone: closedZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(waiting.next_attempt_at));
    expect(opens).toBe('09:00');
    expect(callsTo(closed)).toHaveLength(0);
  });
});

describe('without PUBLIC_BASE_URL', () => {
  let bare: CallsKit;
  beforeAll(async () => {
    bare = await startCallsKit({ plugins: OUTREACH, config: { channels: { publicBaseUrl: '' } } });
  });
  afterAll(() => bare?.stop());

  it('refuses make_call tasks with a 422 saying PUBLIC_BASE_URL must be set', async () => {
    const { agent } = await callingAgent(bare);
    const person = (await bare.kit.api.post('/api/v1/contacts').send({ name: 'Ana', phone_number: '+34611000000' }).expect(201)).body.data.uuid;
    const res = await bare.kit.api.post('/api/v1/tasks').send({ type: 'make_call', agent_uuid: agent, contact_uuid: person });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ type: [expect.stringContaining('PUBLIC_BASE_URL')] });
  });
});
