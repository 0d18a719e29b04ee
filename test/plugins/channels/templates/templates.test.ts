import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { RUNTIME_PLUGINS } from '../../runtime/runtime-test-kit';
import { startWhatsAppServer, type WhatsAppServer } from '../drivers/chatapp/whatsapp-server';
import { CHANNELS, chatappConnection, upstreamTemplate } from './chatapp-kit';

let graph: WhatsAppServer;
let kit: TestKernel;

beforeAll(async () => {
  graph = await startWhatsAppServer({ templatePageSize: 3 });
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, CHANNELS], config: { channels: { chatappApiBaseUrl: graph.apiBaseUrl } } });
});
afterAll(async () => {
  await kit?.stop();
  await graph?.close();
});
beforeEach(() => {
  graph.state.templates = [];
});

const templateCalls = (method: string) => graph.requests.filter((r) => r.method === method && r.path === `/v21.0/${graph.state.wabaId}/message_templates`);
const sync = (wabaId = graph.state.wabaId) => kit.api.post('/api/v1/chatapp/templates/sync').send({ waba_id: wabaId });
async function localTemplates(): Promise<any[]> {
  return (await kit.api.get(`/api/v1/chatapp/templates?waba_id=${graph.state.wabaId}&per_page=100`).expect(200)).body.data.items;
}

describe('POST /api/v1/chatapp/templates/sync', () => {
  it('reads every upstream page, upserts by platform id, is idempotent, and keeps a template removed upstream', async () => {
    await chatappConnection(kit.api, graph);
    graph.state.templates = [upstreamTemplate('welcome', 1), upstreamTemplate('reminder', 2), upstreamTemplate('receipt', 0), upstreamTemplate('survey', 1), upstreamTemplate('promo', 3, { category: 'MARKETING' }), upstreamTemplate('late', 1, { status: 'PENDING' }), upstreamTemplate('otp', 1)];
    const gets = templateCalls('GET').length;

    const first = await sync().expect(200);
    expect(first.body).toEqual({ success: true, message: expect.any(String), data: { waba_id: graph.state.wabaId, meta_returned: 7, local_total_after_sync: 7 } });
    // 7 templates at 3 a page: 3 pages, each after the cursor the previous one gave.
    const pages = templateCalls('GET').slice(gets);
    expect(pages).toHaveLength(3);
    expect(pages[0].query.get('after')).toBeNull();
    expect(pages[1].query.get('after')).not.toBeNull();
    expect(pages[2].query.get('after')).not.toBe(pages[1].query.get('after'));
    expect(pages.every((page) => page.headers.authorization === `Bearer ${graph.state.accessToken}`)).toBe(true);

    const stored = await localTemplates();
    expect(stored.map((t) => t.name).sort()).toEqual(['late', 'otp', 'promo', 'receipt', 'reminder', 'survey', 'welcome']);
    const reminder = stored.find((t) => t.name === 'reminder');
    expect(reminder).toMatchObject({ template_id: graph.state.templates[1].id, language: 'en_US', status: 'APPROVED', category: 'UTILITY', parameters: { body: 2 }, waba_id: graph.state.wabaId });
    expect(stored.find((t) => t.name === 'receipt').parameters).toEqual({});

    // Again, nothing changed upstream: the same counts and the same rows, untouched.
    const again = await sync().expect(200);
    expect(again.body.data).toEqual({ waba_id: graph.state.wabaId, meta_returned: 7, local_total_after_sync: 7 });
    expect(await localTemplates()).toEqual(stored);

    // Upstream, one is removed and another approved: the removed one stays here with its last status.
    const removed = graph.state.templates.splice(0, 1)[0];
    graph.state.templates.find((t) => t.name === 'late')!.status = 'APPROVED';
    const third = await sync().expect(200);
    expect(third.body.data).toEqual({ waba_id: graph.state.wabaId, meta_returned: 6, local_total_after_sync: 7 });
    const after = await localTemplates();
    expect(after.find((t) => t.template_id === removed.id)).toMatchObject({ name: 'welcome', status: 'APPROVED', uuid: stored.find((t) => t.name === 'welcome').uuid });
    expect(after.find((t) => t.name === 'late').status).toBe('APPROVED');
  });

  it('reads at most 10 pages', async () => {
    graph.state.templates = Array.from({ length: 35 }, (_, index) => upstreamTemplate(`bulk_${index}`, 1));
    const gets = templateCalls('GET').length;
    const synced = await sync().expect(200);
    expect(templateCalls('GET').length - gets).toBe(10);
    expect(synced.body.data.meta_returned).toBe(30);
  });

  it('refuses a waba_id no chatapp connection of the tenant holds with 422 at waba_id, asking the platform nothing', async () => {
    const calls = graph.requests.length;
    const refused = await sync('999999999').expect(422);
    expect(refused.body.errors).toEqual({ waba_id: [expect.stringContaining('business_account_id')] });
    // Another tenant's connection holds the fake's account: for this tenant it is as unknown.
    const other = await kit.createTenant('other-templates');
    await other.api.post('/api/v1/chatapp/templates/sync').send({ waba_id: graph.state.wabaId }).expect(422);
    expect(graph.requests.length).toBe(calls);
  });
});

describe('chatapp templates: create, list, read, delete', () => {
  it('creates on the platform then stores; lists, reads; deletes upstream by name then here', async () => {
    const connection = await chatappConnection(kit.api, graph);
    const body = { connection_uuid: connection, name: 'visit_reminder', language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}, see you on {{2}}.', example: { body_text: [['Ana', 'Monday']] } }] };
    const created = await kit.api.post('/api/v1/chatapp/templates').send(body).expect(201);
    const [posted] = templateCalls('POST').slice(-1);
    expect(posted.json()).toEqual({ name: 'visit_reminder', language: 'en_US', category: 'UTILITY', components: body.components });
    const upstream = graph.state.templates.find((t) => t.name === 'visit_reminder')!;
    expect(created.body.data).toMatchObject({ connection_uuid: connection, waba_id: graph.state.wabaId, template_id: upstream.id, name: 'visit_reminder', status: 'PENDING', parameters: { body: 2 } });

    const uuid = created.body.data.uuid;
    expect((await kit.api.get(`/api/v1/chatapp/templates/${uuid}`).expect(200)).body.data).toEqual(created.body.data);
    const listed = await kit.api.get('/api/v1/chatapp/templates?per_page=100').expect(200);
    expect(listed.body.data.pagination.total).toBe(listed.body.data.items.length);
    expect(listed.body.data.items.map((t: any) => t.uuid)).toContain(uuid);

    // Same name and language again: the platform refuses it, and nothing more is stored.
    const duplicate = await kit.api.post('/api/v1/chatapp/templates').send(body).expect(422);
    expect(duplicate.body.errors.components[0]).toContain('already exists');

    await kit.api.delete(`/api/v1/chatapp/templates/${uuid}`).expect(200);
    const [deletedCall] = templateCalls('DELETE').slice(-1);
    expect(deletedCall.query.get('name')).toBe('visit_reminder');
    expect(graph.state.templates.find((t) => t.name === 'visit_reminder')).toBeUndefined();
    await kit.api.get(`/api/v1/chatapp/templates/${uuid}`).expect(404);
  });

  it('refuses a connection that is not a chatapp one of the tenant with 422 at connection_uuid', async () => {
    const refused = await kit.api
      .post('/api/v1/chatapp/templates')
      .send({ connection_uuid: '0b5c0f0e-1111-4222-8333-444455556666', name: 'x', language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi' }] })
      .expect(422);
    expect(Object.keys(refused.body.errors)).toEqual(['connection_uuid']);
  });

  it('a template another tenant reads is not found', async () => {
    const connection = await chatappConnection(kit.api, graph);
    const created = await kit.api.post('/api/v1/chatapp/templates').send({ connection_uuid: connection, name: 'private_one', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola' }] }).expect(201);
    const other = await kit.createTenant('other-reader');
    await other.api.get(`/api/v1/chatapp/templates/${created.body.data.uuid}`).expect(404);
    await other.api.delete(`/api/v1/chatapp/templates/${created.body.data.uuid}`).expect(404);
  });
});
