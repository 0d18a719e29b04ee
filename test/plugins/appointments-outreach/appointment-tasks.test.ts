import path from 'node:path';
import { waitFor } from '../../../core/testing';
import { OUR_NUMBER, agentOn, connection, settle, startProvidersRig, type ProvidersRig } from '../../e2e/channels/providers-kit';
import { dayFromNow, madrid, makeSchedule, makeType } from '../appointments/appointments-kit';

/**
 * `appointment` tasks end to end: an appointment booked over the API, a task made over
 * the API, outreach's runner handing it to this plugin's executor, which renders the
 * text on the schedule's wall clock and sends it through the channels plugin's
 * send_message executor and the real Twilio driver, to the local Twilio fake.
 */

const PLUGINS = path.resolve(__dirname, '../../../plugins');

let rig: ProvidersRig;

beforeAll(async () => {
  rig = await startProvidersRig({ plugins: ['appointments', 'outreach', 'appointments-outreach'].map((id) => path.join(PLUGINS, id)) });
});
afterAll(async () => {
  await rig?.stop();
});

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2026-12-07` as the default texts write it: `Monday 7 December 2026`. */
function inWords(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return `${WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()]} ${day} ${MONTHS[month - 1]} ${year}`;
}

/** A Twilio SMS agent, a contact, and an appointment of theirs with Dr. Ruiz (Europe/Madrid) at 10:30 local, `days` from now. */
async function booked(phone: string, days = 10): Promise<{ agent: string; contact: string; appointment: string; day: string }> {
  const { kit, twilio } = rig;
  const account = twilio.state.accounts[0];
  const conn = await connection(kit, 'twilio', { account_sid: account.sid, auth_token: account.authToken, from_number: OUR_NUMBER });
  const { agent } = await agentOn(kit, conn, 'sms');
  const contact = (await kit.api.post('/api/v1/contacts').send({ name: 'Ana', surname: 'García', phone_number: phone }).expect(201)).body.data.uuid as string;
  const type = await makeType(kit.api, await makeSchedule(kit.api));
  const day = dayFromNow(days);
  const created = await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '10:30'), contact_uuid: contact });
  expect(created.status).toBe(201);
  return { agent, contact, appointment: created.body.data.uuid, day };
}

const createTask = (body: Record<string, unknown>) => rig.kit.api.post('/api/v1/tasks').send({ type: 'appointment', max_retry_attempts: 0, ...body });

async function finished(taskUuid: string): Promise<any> {
  return waitFor(
    async () => (await rig.kit.api.get(`/api/v1/tasks/${taskUuid}`).expect(200)).body.data,
    (task) => ['completed', 'failed'].includes(task.status),
  );
}

const smsTo = (phone: string) => rig.twilio.state.messages.filter((message) => message.to === phone);

describe('appointment tasks', () => {
  it('a reminder goes out by SMS with the appointment’s local time, the task completed with what was sent', async () => {
    const phone = '+14155550180';
    const { agent, contact, appointment, day } = await booked(phone);
    const created = await createTask({ agent_uuid: agent, contact_uuid: contact, task_data: { appointment_uuid: appointment, channel: 'sms' } }).expect(201);
    const task = await finished(created.body.data.uuid);
    expect(task).toMatchObject({ status: 'completed', last_error: null, result: { appointment_uuid: appointment, purpose: 'reminder', channel_type: 'sms', message_type: 'text', to: phone } });

    // 10:30 on Madrid's clock (08:30 or 09:30 UTC), as the contact reads it.
    const text = `Reminder: you have an appointment with Dr. Ruiz on ${inWords(day)} at 10:30 (Europe/Madrid).`;
    const [sms] = await waitFor(() => smsTo(phone), (found) => found.length === 1);
    expect(sms).toMatchObject({ from: OUR_NUMBER, body: text });
    const message = await waitFor(
      async () => (await rig.kit.api.get(`/api/v1/conversations/${task.result.conversation_uuid}/messages?per_page=100`).expect(200)).body.data.items.find((m: any) => m.message_uuid === task.result.message_uuid),
      (found) => found?.delivery_status === 'sent',
    );
    expect(message).toMatchObject({ sender: 'agent', content: text, channel: 'sms' });
  });

  it('a confirmation with its own text fills every placeholder; the contact given inline by phone is the appointment’s', async () => {
    const phone = '+14155550181';
    const { agent, contact, appointment, day } = await booked(phone);
    const message = '{{contact_name}}, please confirm {{ starts_at_local }} ({{timezone}}) with {{schedule_name}}: {{date}}, {{time}}.';
    const created = await createTask({ agent_uuid: agent, contact: { phone_number: phone }, task_data: { appointment_uuid: appointment, purpose: 'confirmation', message } }).expect(201);
    const task = await finished(created.body.data.uuid);
    expect(task).toMatchObject({ status: 'completed', contact_uuid: contact, result: { appointment_uuid: appointment, purpose: 'confirmation', channel_type: 'sms' } });
    const [sms] = await waitFor(() => smsTo(phone), (found) => found.length === 1);
    expect(sms.body).toBe(`Ana García, please confirm ${day} 10:30 (Europe/Madrid) with Dr. Ruiz: ${inWords(day)}, 10:30.`);
  });

  it('an appointment cancelled after the task was made fails the task, and nothing is sent', async () => {
    const phone = '+14155550182';
    const { agent, contact, appointment } = await booked(phone);
    const scheduledAt = new Date(Date.now() + 3000).toISOString();
    const created = await createTask({ agent_uuid: agent, contact_uuid: contact, scheduled_at: scheduledAt, task_data: { appointment_uuid: appointment } }).expect(201);
    await rig.kit.api.post(`/api/v1/appointments/${appointment}/cancel`).send({ reason: 'patient called' }).expect(200);

    const task = await finished(created.body.data.uuid);
    expect(task.status).toBe('failed');
    expect(task.last_error).toMatch(/appointment was cancelled \(patient called\): no reminder sent/);
    await settle(rig.kit);
    expect(smsTo(phone)).toEqual([]);
  });

  it('refuses bad task_data with 422 at each path, and makes no task', async () => {
    const { kit } = rig;
    const { agent, contact, appointment } = await booked('+14155550183');
    const before = (await kit.api.get('/api/v1/tasks?per_page=1').expect(200)).body.data.total;
    const refused = async (body: Record<string, unknown>) => (await createTask({ agent_uuid: agent, contact_uuid: contact, ...body }).expect(422)).body.errors;

    expect(Object.keys(await refused({ task_data: {} }))).toEqual(['task_data.appointment_uuid']);
    expect(Object.keys(await refused({ task_data: { appointment_uuid: 'not-a-uuid' } }))).toEqual(['task_data.appointment_uuid']);
    expect(await refused({ task_data: { appointment_uuid: '0b5c0f0e-1111-4222-8333-444455556666' } })).toEqual({ 'task_data.appointment_uuid': ['is not an appointment of this tenant'] });

    const unknown = await refused({ task_data: { appointment_uuid: appointment, message: 'See you {{when}} at {{time}} {{ where }}' } });
    expect(Object.keys(unknown)).toEqual(['task_data.message']);
    expect(unknown['task_data.message'][0]).toMatch(/\{\{when\}\}, \{\{where\}\}; known: .*\{\{starts_at_local\}\}/);
    expect(Object.keys(await refused({ task_data: { appointment_uuid: appointment, message: '   ' } }))).toEqual(['task_data.message']);
    expect(Object.keys(await refused({ task_data: { appointment_uuid: appointment, purpose: 'nag' } }))).toEqual(['task_data.purpose']);
    expect(Object.keys(await refused({ task_data: { appointment_uuid: appointment, channel: 'fax' } }))).toEqual(['task_data.channel']);
    // A text too long once rendered, by send_message's own limit.
    expect(Object.keys(await refused({ task_data: { appointment_uuid: appointment, message: `{{schedule_name}} ${'x'.repeat(4090)}` } }))).toEqual(['task_data.message']);
    // Every problem at once.
    expect(Object.keys(await refused({ task_data: { purpose: 'nag', message: '{{nope}}', channel: 'fax' } })).sort()).toEqual(['task_data.appointment_uuid', 'task_data.channel', 'task_data.message', 'task_data.purpose']);

    // Another contact than the appointment's.
    const other = (await kit.api.post('/api/v1/contacts').send({ name: 'Ben', phone_number: '+14155550184' }).expect(201)).body.data.uuid;
    expect(Object.keys(await refused({ contact_uuid: other, task_data: { appointment_uuid: appointment } }))).toEqual(['contact_uuid']);

    // Another tenant's appointment is as unknown as none.
    const elsewhere = await kit.createTenant('appointment-elsewhere');
    const theirs = (await elsewhere.api.post('/api/v1/appointments').send({ availability_type_uuid: await makeType(elsewhere.api, await makeSchedule(elsewhere.api)), starts_at: madrid(dayFromNow(12), '11:00') }).expect(201)).body.data.uuid;
    expect(await refused({ task_data: { appointment_uuid: theirs } })).toEqual({ 'task_data.appointment_uuid': ['is not an appointment of this tenant'] });

    // A cancelled appointment has nothing to remind of.
    await kit.api.post(`/api/v1/appointments/${appointment}/cancel`).send({}).expect(200);
    expect((await refused({ task_data: { appointment_uuid: appointment } }))['task_data.appointment_uuid'][0]).toMatch(/was cancelled/);

    expect((await kit.api.get('/api/v1/tasks?per_page=1').expect(200)).body.data.total).toBe(before);
  });
});
