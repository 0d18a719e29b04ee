import request from 'supertest';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { RUNTIME_PLUGINS, activeAgent } from '../../runtime/runtime-test-kit';
import { signedGraphWebhook } from '../drivers/chatapp/graph-webhook';
import { startWhatsAppServer, type WhatsAppServer } from '../drivers/chatapp/whatsapp-server';
import { CHANNELS, chatappConnection } from './chatapp-kit';

/**
 * The platform's template status webhooks (`message_template_status_update`) on a chatapp
 * channel's hook: the stored template with that platform id takes the new status and
 * reason; an unknown id changes nothing; an unsigned or wrongly signed one is refused.
 */

const APP_SECRET = 'app-secret';

let graph: WhatsAppServer;
let kit: TestKernel;
let channel: string;
let connection: string;

beforeAll(async () => {
  graph = await startWhatsAppServer();
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, CHANNELS], config: { channels: { chatappApiBaseUrl: graph.apiBaseUrl } } });
  connection = await chatappConnection(kit.api, graph, { app_secret: APP_SECRET });
  const agent = await activeAgent(kit.api);
  const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'chatapp', name: 'WhatsApp', config: { connection_uuid: connection } });
  expect([200, 201]).toContain(added.status);
  channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'chatapp').uuid;
});
afterAll(async () => {
  await kit?.stop();
  await graph?.close();
});

/** A template created through the API: submitted to the platform (which answers PENDING) and stored. */
async function createdTemplate(name: string): Promise<any> {
  const created = await kit.api
    .post('/api/v1/chatapp/templates')
    .send({ connection_uuid: connection, name, language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}.', example: { body_text: [['Ana']] } }] })
    .expect(201);
  expect(created.body.data).toMatchObject({ status: 'PENDING', status_reason: null });
  return created.body.data;
}

const read = async (uuid: string) => (await kit.api.get(`/api/v1/chatapp/templates/${uuid}`).expect(200)).body.data;
const deliver = (payload: unknown, secret = APP_SECRET) => {
  const signed = signedGraphWebhook(payload, secret);
  return request(kit.url).post(`/hooks/channels/${channel}`).set(signed.headers).send(signed.body);
};

describe('chatapp template status webhooks', () => {
  it('sets the stored template’s status and reason: approved, rejected with its reason, paused, disabled', async () => {
    const template = await createdTemplate('status_walk');
    await deliver(graph.reviewTemplate(template.template_id, 'APPROVED')).expect(200);
    expect(await read(template.uuid)).toMatchObject({ status: 'APPROVED', status_reason: null });

    await deliver(graph.reviewTemplate(template.template_id, 'REJECTED', 'INVALID_FORMAT')).expect(200);
    const rejected = await read(template.uuid);
    expect(rejected).toMatchObject({ status: 'REJECTED', status_reason: 'INVALID_FORMAT' });

    await deliver(graph.reviewTemplate(template.template_id, 'PAUSED', 'Low quality rating')).expect(200);
    expect(await read(template.uuid)).toMatchObject({ status: 'PAUSED', status_reason: 'Low quality rating' });
    await deliver(graph.reviewTemplate(template.template_id, 'DISABLED')).expect(200);
    expect(await read(template.uuid)).toMatchObject({ status: 'DISABLED', status_reason: null });

    // A sync that finds another status drops the webhook's reason for the old one.
    await deliver(graph.reviewTemplate(template.template_id, 'REJECTED', 'TAG_CONTENT_MISMATCH')).expect(200);
    graph.state.templates.find((t) => t.id === template.template_id)!.status = 'APPROVED';
    await kit.api.post('/api/v1/chatapp/templates/sync').send({ waba_id: graph.state.wabaId }).expect(200);
    expect(await read(template.uuid)).toMatchObject({ status: 'APPROVED', status_reason: null });
  });

  it('ignores a template id it does not store and another business account’s update, and refuses a bad signature with nothing changed', async () => {
    const template = await createdTemplate('status_guarded');
    const before = await read(template.uuid);

    const unknown = graph.reviewTemplate('987654321012345', 'REJECTED', 'SCAM');
    await deliver(unknown).expect(200);
    const listed = (await kit.api.get('/api/v1/chatapp/templates?per_page=100').expect(200)).body.data.items;
    expect(listed.some((t: any) => t.status === 'REJECTED' && t.status_reason === 'SCAM')).toBe(false);

    const elsewhere = graph.reviewTemplate(template.template_id, 'REJECTED', 'SCAM') as any;
    elsewhere.entry[0].id = '999999999999999';
    await deliver(elsewhere).expect(200);
    expect(await read(template.uuid)).toMatchObject({ status: 'PENDING', status_reason: null, updated_at: before.updated_at });

    await deliver(graph.reviewTemplate(template.template_id, 'APPROVED'), 'not-the-app-secret').expect(401);
    await request(kit.url).post(`/hooks/channels/${channel}`).set('content-type', 'application/json').send(JSON.stringify(graph.reviewTemplate(template.template_id, 'APPROVED'))).expect(401);
    expect(await read(template.uuid)).toMatchObject({ status: 'PENDING', updated_at: before.updated_at });
  });
});
