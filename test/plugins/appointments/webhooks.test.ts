import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import { activeAgent, startReceiver, type Receiver } from '../runtime/runtime-test-kit';
import { APPOINTMENT_PLUGINS, dayFromNow, madrid, makeSchedule, makeType } from './appointments-kit';

const SECRET = `whsec_${Buffer.from('a-secret-of-thirty-two-bytes-ok!').toString('base64')}`;
let receiver: Receiver;
let kit: TestKernel;

beforeAll(async () => {
  receiver = await startReceiver();
  kit = await startTestKernel({ plugins: [...APPOINTMENT_PLUGINS, path.resolve(__dirname, '../../../plugins/agent-webhooks')] });
});
afterAll(async () => {
  await kit?.stop();
  await receiver?.close();
});

describe('appointment events reach the agent’s webhooks', () => {
  it('are in the event catalog, and arrive signed with the appointment and its schedule', async () => {
    const catalog = (await kit.api.get('/api/v1/agent-webhook-events').expect(200)).body.data;
    const names = (Array.isArray(catalog) ? catalog : catalog.items).map((event: any) => event.name);
    expect(names).toEqual(expect.arrayContaining(['appointment_booked', 'appointment_rescheduled', 'appointment_cancelled', 'appointment_request_created']));

    const agent = await activeAgent(kit.api);
    await kit.api
      .post(`/api/v1/agents/${agent}/webhooks`)
      .send({ url: `${receiver.url}/events`, events: ['appointment_booked', 'appointment_cancelled'], is_active: true, secret: SECRET })
      .expect((res) => expect([200, 201]).toContain(res.status));
    const schedule = await makeSchedule(kit.api, { name: 'Dr. Vidal' });
    const type = await makeType(kit.api, schedule);
    const day = dayFromNow(10);
    const booked = (await kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: madrid(day, '10:00'), agent_uuid: agent }).expect(201)).body.data;
    await kit.api.post(`/api/v1/appointments/${booked.uuid}/reschedule`).send({ starts_at: madrid(day, '11:00') }).expect(200);
    await kit.api.post(`/api/v1/appointments/${booked.uuid}/cancel`).send({ reason: 'ill' }).expect(200);

    // Rescheduled is not subscribed: two deliveries, in order.
    const hits = await waitFor(() => receiver.requests.filter((request) => request.path === '/events'), (found) => found.length >= 2);
    const verifier = new Webhook(SECRET);
    const bodies = hits.map((hit) => verifier.verify(JSON.stringify(hit.body), hit.headers as Record<string, string>) as any);
    expect(bodies.map((body) => body.type).sort()).toEqual(['appointment_booked', 'appointment_cancelled']);
    const cancelled = bodies.find((body) => body.type === 'appointment_cancelled');
    expect(cancelled.data).toMatchObject({
      agent_uuid: agent,
      appointment: { uuid: booked.uuid, status: 'cancelled', cancellation_reason: 'ill', starts_at: madrid(day, '11:00') },
      schedule: { uuid: schedule, name: 'Dr. Vidal', timezone: 'Europe/Madrid', calendar_connection_uuid: null },
    });
  });
});
