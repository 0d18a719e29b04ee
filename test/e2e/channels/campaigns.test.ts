import path from 'node:path';
import { waitFor } from '../../../core/testing';
import { OUR_NUMBER, agentOn, connection, messagesOf, startProvidersRig, type ProvidersRig } from './providers-kit';

/**
 * A campaign of `send_message` runs end to end: activating it makes one task per pool
 * contact, outreach's runner hands each to the channels plugin's executor, and the real
 * Twilio driver sends the campaign's text to each contact at the local Twilio fake.
 */

const PLUGINS = path.resolve(__dirname, '../../../plugins');

let rig: ProvidersRig;

beforeAll(async () => {
  rig = await startProvidersRig({ plugins: [path.join(PLUGINS, 'outreach'), path.join(PLUGINS, 'channels-outreach')] });
});
afterAll(async () => {
  await rig?.stop();
});

async function contactWith(phone: string, name: string): Promise<string> {
  const created = await rig.kit.api.post('/api/v1/contacts').send({ name, phone_number: phone });
  expect(created.status).toBe(201);
  return created.body.data.uuid;
}

describe('send_message campaigns', () => {
  it('sends the campaign’s text to each pool contact by SMS, each task completed with the message recorded', async () => {
    const { kit, twilio } = rig;
    const account = twilio.state.accounts[0];
    const conn = await connection(kit, 'twilio', { account_sid: account.sid, auth_token: account.authToken, from_number: OUR_NUMBER });
    const { agent, channel } = await agentOn(kit, conn, 'sms');
    const text = 'Reminder: your cleaning is tomorrow at ten.';

    const created = await kit.api.post('/api/v1/campaigns').send({ name: 'Reminders', agent_uuid: agent, task_type: 'send_message', task_data: { message: text, channel: 'sms' } });
    expect(created.status).toBe(201);
    const campaign = created.body.data.uuid as string;
    const pool = (await kit.api.post('/api/v1/pools').send({ campaign_uuid: campaign, name: 'Patients' }).expect(201)).body.data.uuid as string;
    const customers = ['+14155550170', '+14155550171'];
    const contacts = [await contactWith(customers[0], 'Ana'), await contactWith(customers[1], 'Ben')];
    await kit.api.post(`/api/v1/pools/${pool}/contacts`).send({ contact_uuids: contacts }).expect(200);
    await kit.api.post(`/api/v1/campaigns/${campaign}/activate`).expect(200);

    const tasks = await waitFor(
      async () => (await kit.api.get(`/api/v1/tasks?campaign_uuid=${campaign}&per_page=100`).expect(200)).body.data.items as any[],
      (found) => found.length === 2 && found.every((task) => ['completed', 'failed'].includes(task.status)),
    );
    for (const task of tasks) expect(task).toMatchObject({ status: 'completed', last_error: null, result: { channel_uuid: channel, channel_type: 'sms', message_type: 'text' } });
    expect(tasks.map((task) => task.result.to).sort()).toEqual(customers);

    const sent = await waitFor(
      () => twilio.state.messages.filter((message) => customers.includes(message.to)),
      (found) => found.length === 2,
    );
    for (const sms of sent) expect(sms).toMatchObject({ accountSid: account.sid, from: OUR_NUMBER, body: text });

    // Each contact's message is on a conversation of its own with the contact, sent.
    for (const task of tasks) {
      const message = await waitFor(
        async () => (await messagesOf(kit, task.result.conversation_uuid)).find((m: any) => m.message_uuid === task.result.message_uuid),
        (found) => found?.delivery_status === 'sent',
      );
      expect(message).toMatchObject({ sender: 'agent', content: text, channel: 'sms' });
      const conversation = (await kit.api.get(`/api/v1/conversations/${task.result.conversation_uuid}`).expect(200)).body.data;
      expect(conversation.contact_uuid).toBe(task.contact_uuid);
    }
  });
});
