import path from 'node:path';
import request from 'supertest';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../../core/testing';
import { runInContext } from '../../../../core/context/request-context';
import { checkSendMessageData } from '../../../../plugins/channels/outreach';
import { RUNTIME_PLUGINS, activeAgent, isGuardCheck } from '../../runtime/runtime-test-kit';
import { signedGraphWebhook, whatsAppTextWebhook } from '../drivers/chatapp/graph-webhook';
import { startWhatsAppServer, type WhatsAppServer } from '../drivers/chatapp/whatsapp-server';
import { CHANNELS, OUTREACH, chatappConnection, upstreamTemplate } from '../templates/chatapp-kit';

/** The plugin that gives outreach the executor, as an install loads it. */
const CHANNELS_OUTREACH = path.resolve(__dirname, '../../../../plugins/channels-outreach');

const APP_SECRET = 'app-secret';
const UNPACED = {
  text: { timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 1000, typing_speed_wpm_max: 1000, delay_jitter_min: 0, delay_jitter_max: 0 } },
};

let graph: WhatsAppServer;
let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  graph = await startWhatsAppServer();
  model = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: [...RUNTIME_PLUGINS, OUTREACH, CHANNELS, CHANNELS_OUTREACH],
    config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0, channels: { chatappApiBaseUrl: graph.apiBaseUrl, publicBaseUrl: 'https://switchboard.example' } },
  });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
  await graph?.close();
});

/** An agent answering on a chatapp channel of a new connection, and the templates of the account synced. */
async function chatappAgent(): Promise<{ agent: string; channel: string }> {
  const connection = await chatappConnection(kit.api, graph);
  const agent = await activeAgent(kit.api, { settings: UNPACED });
  const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'chatapp', name: 'WhatsApp', config: { connection_uuid: connection } });
  expect([200, 201]).toContain(added.status);
  const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'chatapp').uuid as string;
  return { agent, channel };
}

async function syncedTemplate(name: string, placeholders: number, overrides: Parameters<typeof upstreamTemplate>[2] = {}): Promise<any> {
  graph.state.templates.push(upstreamTemplate(name, placeholders, overrides));
  await kit.api.post('/api/v1/chatapp/templates/sync').send({ waba_id: graph.state.wabaId }).expect(200);
  const listed = await kit.api.get(`/api/v1/chatapp/templates?per_page=100`).expect(200);
  return listed.body.data.items.find((t: any) => t.name === name);
}

const createTask = (agent: string, phone: string, taskData: Record<string, unknown>) =>
  kit.api.post('/api/v1/tasks').send({ type: 'send_message', agent_uuid: agent, contact: { phone_number: phone }, task_data: taskData, max_retry_attempts: 0 });

async function finished(taskUuid: string): Promise<any> {
  return waitFor(
    async () => (await kit.api.get(`/api/v1/tasks/${taskUuid}`).expect(200)).body.data,
    (task) => ['completed', 'failed'].includes(task.status),
  );
}

async function messagesOf(conversation: string): Promise<any[]> {
  return (await kit.api.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data.items;
}

/** The customer writing on the channel, as the platform's webhook delivers it (signed with the app secret). */
async function customerWrites(channel: string, phone: string, id: string, text: string): Promise<void> {
  // The turn it runs gets this answer (each reply() serves the next turn).
  model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Thanks, noted.' }));
  const signed = signedGraphWebhook(whatsAppTextWebhook({ phoneNumberId: graph.state.phoneNumberId, from: phone, id, text }), APP_SECRET);
  await request(kit.url).post(`/hooks/channels/${channel}`).set(signed.headers).send(signed.body).expect(200);
}

describe('send_message tasks on the chatapp', () => {
  it('sends a template with its variables and records it on the conversation, sent', async () => {
    const { agent, channel } = await chatappAgent();
    const template = await syncedTemplate('visit_reminder', 2);
    const created = await createTask(agent, '+34600000101', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', 'Monday'] }).expect(201);
    const task = await finished(created.body.data.uuid);
    expect(task).toMatchObject({ status: 'completed', last_error: null, result: { channel_uuid: channel, message_type: 'chatapp_template', to: '+34600000101' } });

    const sent = graph.state.templateSends.filter((s) => s.to === '34600000101');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ name: 'visit_reminder', language: 'en_US', bodyValues: ['Ana', 'Monday'] });
    expect(sent[0].request).toMatchObject({ messaging_product: 'whatsapp', type: 'template', template: { name: 'visit_reminder', language: { code: 'en_US' } } });
    expect(task.result.external_id).toBe(sent[0].id);

    const [message] = await messagesOf(task.result.conversation_uuid);
    expect(message).toMatchObject({ message_uuid: task.result.message_uuid, sender: 'agent', channel: 'chatapp', content: 'Hello Ana and Monday.', delivery_status: 'sent' });

    // The platform's receipt for it updates the message, as for any reply.
    const receipt = signedGraphWebhook(
      { object: 'whatsapp_business_account', entry: [{ id: graph.state.wabaId, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: graph.state.displayPhoneNumber, phone_number_id: graph.state.phoneNumberId }, statuses: [{ id: sent[0].id, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '34600000101' }] } }] }] },
      APP_SECRET,
    );
    await request(kit.url).post(`/hooks/channels/${channel}`).set(receipt.headers).send(receipt.body).expect(200);
    await waitFor(
      async () => (await messagesOf(task.result.conversation_uuid))[0],
      (m) => m.delivery_status === 'delivered',
    );
  });

  it('sends free text inside the 24-hour window, like a reply', async () => {
    const { agent, channel } = await chatappAgent();
    await customerWrites(channel, '+34600000102', 'wamid.in-102', 'Hi, any news?');
    // The customer's message (and the agent's answer to it) went through the turn first.
    await waitFor(() => graph.state.sent.filter((s) => s.to === '34600000102'), (found) => found.length === 1);

    const created = await createTask(agent, '+34600000102', { message: 'Your order has shipped.' }).expect(201);
    const task = await finished(created.body.data.uuid);
    expect(task).toMatchObject({ status: 'completed', result: { channel_uuid: channel, message_type: 'text' } });
    const [sent] = await waitFor(() => graph.state.sent.filter((s) => s.to === '34600000102' && s.body === 'Your order has shipped.'), (found) => found.length === 1);
    // In the thread's conversation, after the customer's message, and delivered as a reply is.
    const message = await waitFor(
      async () => (await messagesOf(task.result.conversation_uuid)).find((m) => m.message_uuid === task.result.message_uuid),
      (m) => m?.delivery_status === 'sent',
    );
    expect(message).toMatchObject({ sender: 'agent', content: 'Your order has shipped.' });
    expect((await messagesOf(task.result.conversation_uuid)).some((m) => m.sender === 'customer' && m.content === 'Hi, any news?')).toBe(true);
    expect(sent.request).toMatchObject({ type: 'text' });
  });

  it('refuses free text outside the window: a contact who never wrote, and one who wrote 25 hours ago', async () => {
    const { agent, channel } = await chatappAgent();
    const sends = graph.state.sent.length;
    const never = await createTask(agent, '+34600000103', { message: 'Hello there' }).expect(201);
    const neverTask = await finished(never.body.data.uuid);
    expect(neverTask.status).toBe('failed');
    expect(neverTask.last_error).toMatch(/24-hour customer-service window.*chatapp_template/);

    await customerWrites(channel, '+34600000104', 'wamid.in-104', 'Hello');
    await waitFor(() => graph.state.sent.filter((s) => s.to === '34600000104'), (found) => found.length === 1);
    // The customer's message is made 25 hours old.
    await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(
        `update conversation_messages set created_at = now() - interval '25 hours' where sender = 'customer' and conversation_uuid = (select conversation_uuid from channel_threads where channel_uuid = ? and address = ?)`,
        [channel, '+34600000104'],
      );
    const late = await createTask(agent, '+34600000104', { message: 'Still there?' }).expect(201);
    const lateTask = await finished(late.body.data.uuid);
    expect(lateTask.status).toBe('failed');
    expect(lateTask.last_error).toMatch(/outside its 24-hour/);
    expect(graph.state.sent.slice(sends).filter((s) => s.body === 'Hello there' || s.body === 'Still there?')).toEqual([]);

    // A template goes out where free text may not.
    const template = await syncedTemplate('follow_up_note', 1);
    const templated = await createTask(agent, '+34600000104', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana'] }).expect(201);
    expect((await finished(templated.body.data.uuid)).status).toBe('completed');
  });

  it('refuses variables that do not fit the template’s parameters at creation, 422 at task_data.variables', async () => {
    const { agent } = await chatappAgent();
    const template = await syncedTemplate('two_values', 2);
    const tooFew = await createTask(agent, '+34600000105', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana'] }).expect(422);
    expect(Object.keys(tooFew.body.errors)).toEqual(['task_data.variables']);
    const wrongComponent = await createTask(agent, '+34600000105', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: { header: ['x'], body: ['a', 'b'] } }).expect(422);
    expect(Object.keys(wrongComponent.body.errors)).toEqual(['task_data.variables.header']);
    const unknown = await createTask(agent, '+34600000105', { message_type: 'chatapp_template', template_uuid: '0b5c0f0e-1111-4222-8333-444455556666', variables: [] }).expect(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['task_data.template_uuid']);
    const noText = await createTask(agent, '+34600000105', {}).expect(422);
    expect(Object.keys(noText.body.errors)).toEqual(['task_data.message']);
  });

  it('checks a send_message campaign’s task_data as a task’s when the campaign is created or changed, 422 at task_data paths', async () => {
    const { agent } = await chatappAgent();
    const template = await syncedTemplate('campaign_values', 2);
    const campaign = (taskData: Record<string, unknown>) => kit.api.post('/api/v1/campaigns').send({ name: 'Reminders', agent_uuid: agent, task_type: 'send_message', task_data: taskData });
    const tooFew = await campaign({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana'] }).expect(422);
    expect(Object.keys(tooFew.body.errors)).toEqual(['task_data.variables']);
    const unknown = await campaign({ message_type: 'chatapp_template', template_uuid: '0b5c0f0e-1111-4222-8333-444455556666', variables: [] }).expect(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['task_data.template_uuid']);
    expect(Object.keys((await campaign({}).expect(422)).body.errors)).toEqual(['task_data.message']);

    const created = await campaign({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', 'Monday'] }).expect(201);
    const uuid = created.body.data.uuid as string;
    const patched = await kit.api.patch(`/api/v1/campaigns/${uuid}`).send({ task_data: { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', 'Monday', 'extra'] } }).expect(422);
    expect(Object.keys(patched.body.errors)).toEqual(['task_data.variables']);
    // Refused, nothing changed; a change that fits is taken.
    expect((await kit.api.get(`/api/v1/campaigns/${uuid}`).expect(200)).body.data.task_data.variables).toEqual(['Ana', 'Monday']);
    await kit.api.patch(`/api/v1/campaigns/${uuid}`).send({ task_data: { message: 'Plain text now' } }).expect(200);
  });

  it('a task’s first message and a customer’s message of the same address at the same moment end in one conversation', async () => {
    const { agent, channel } = await chatappAgent();
    const template = await syncedTemplate('same_moment', 1);
    const phone = '+34600000111';
    // A conversation of the customer's (their message and its turn), then its thread forgotten: the task will find none.
    await customerWrites(channel, phone, 'wamid.in-111', 'Hello');
    await waitFor(() => graph.state.sent.filter((s) => s.to === '34600000111'), (found) => found.length === 1);
    const sql = kit.kernel.orm.em.fork().getConnection();
    const [{ conversation_uuid: customers }] = await sql.execute('select conversation_uuid from channel_threads where channel_uuid = ? and address = ?', [channel, phone]);
    await sql.execute('delete from channel_threads where channel_uuid = ? and address = ?', [channel, phone]);

    // The customer's message claims the thread (as openThread does) in a transaction that commits only once the task's attempt waits on the thread's key.
    let task: string | undefined;
    await kit.kernel.orm.em.fork().transactional(async (tx) => {
      await tx.getConnection().execute(
        'insert into channel_threads (uuid, tenant_uuid, created_at, updated_at, channel_uuid, address, conversation_uuid) values (gen_random_uuid(), ?, now(), now(), ?, ?, ?)',
        [kit.tenant.uuid, channel, phone, customers],
        'run',
        tx.getTransactionContext(),
      );
      task = (await createTask(agent, phone, { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana'] }).expect(201)).body.data.uuid;
      await waitFor(
        async () =>
          Number(
            (
              await sql.execute(
                "select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into channel_threads%'",
              )
            )[0].waiting,
          ),
        (waiting) => waiting > 0,
      );
    });

    const done = await finished(task!);
    expect(done).toMatchObject({ status: 'completed', result: { message_type: 'chatapp_template' } });
    // The task's message went in the customer's conversation, which the thread still names: one conversation, not two.
    expect(done.result.conversation_uuid).toBe(customers);
    const [thread] = await sql.execute('select conversation_uuid from channel_threads where channel_uuid = ? and address = ?', [channel, phone]);
    expect(thread.conversation_uuid).toBe(customers);
    const messages = await messagesOf(customers);
    expect(messages.map((m) => [m.sender, m.content])).toEqual(expect.arrayContaining([['customer', 'Hello'], ['agent', 'Hello Ana.']]));
  });

  it('sends a template’s header (media or text) and button parameters, checked against the template at creation', async () => {
    const { agent } = await chatappAgent();
    const buttons = { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Confirm' }, { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+34910000000' }, { type: 'URL', text: 'Details', url: 'https://clinic.example/v/{{1}}' }] };
    const media = await syncedTemplate('visit_card', 1, {
      components: [{ type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['4::ZG9j'] } }, { type: 'BODY', text: 'Your visit on {{1}}.' }, buttons],
    });
    const texted = await syncedTemplate('visit_titled', 1, { components: [{ type: 'HEADER', format: 'TEXT', text: 'Visit {{1}}' }, { type: 'BODY', text: 'See you on {{1}}.' }] });
    const data = {
      message_type: 'chatapp_template',
      template_uuid: media.uuid,
      variables: ['Monday'],
      header: { type: 'document', link: 'https://clinic.example/files/visit.pdf', filename: 'visit.pdf' },
      buttons: [
        { index: 2, sub_type: 'url', text: 'V-77' },
        { index: 0, sub_type: 'quick_reply', payload: 'CONFIRM-V-77' },
      ],
    };
    const created = await createTask(agent, '+34600000120', data).expect(201);
    expect((await finished(created.body.data.uuid)).status).toBe('completed');
    const [sent] = graph.state.templateSends.filter((s) => s.to === '34600000120');
    expect((sent.request.template as any).components).toEqual([
      { type: 'header', parameters: [{ type: 'document', document: { link: 'https://clinic.example/files/visit.pdf', filename: 'visit.pdf' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Monday' }] },
      { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'CONFIRM-V-77' }] },
      { type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'V-77' }] },
    ]);

    // A text header's placeholder, given as the header's text.
    const titled = await createTask(agent, '+34600000121', { message_type: 'chatapp_template', template_uuid: texted.uuid, variables: ['Monday'], header: { type: 'text', text: 'A-12' } }).expect(201);
    expect((await finished(titled.body.data.uuid)).status).toBe('completed');
    const [titledSend] = graph.state.templateSends.filter((s) => s.to === '34600000121');
    expect((titledSend.request.template as any).components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'A-12' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Monday' }] },
    ]);

    // What does not fit the template's components is refused at creation, each at its path.
    const refused = async (changes: Record<string, unknown>) => Object.keys((await createTask(agent, '+34600000122', { ...data, ...changes }).expect(422)).body.errors).sort();
    expect(await refused({ header: undefined })).toEqual(['task_data.header']);
    expect(await refused({ header: { type: 'image', link: 'https://clinic.example/x.jpg' } })).toEqual(['task_data.header.type']);
    expect(await refused({ header: { type: 'document', link: 'ftp://clinic.example/x.pdf' } })).toEqual(['task_data.header.link']);
    expect(await refused({ buttons: [{ index: 0, sub_type: 'quick_reply', payload: 'OK' }] })).toEqual(['task_data.buttons']);
    expect(await refused({ buttons: [{ index: 2, sub_type: 'url', text: 'V-1' }, { index: 1, sub_type: 'quick_reply', payload: 'OK' }] })).toEqual(['task_data.buttons.1.sub_type']);
    expect(await refused({ buttons: [{ index: 2, sub_type: 'url', text: 'V-1' }, { index: 5, sub_type: 'quick_reply', payload: 'OK' }] })).toEqual(['task_data.buttons.1.index']);
    expect(await refused({ buttons: [{ index: 2, sub_type: 'url', text: '' }] })).toEqual(['task_data.buttons.0.text']);
    expect(await refused({ template_uuid: texted.uuid, header: { type: 'text', text: '' }, buttons: undefined })).toEqual(['task_data.header.text']);
    expect(await refused({ template_uuid: texted.uuid, header: undefined, buttons: [{ index: 0, sub_type: 'quick_reply', payload: 'OK' }], variables: { header: ['A'], body: ['B'] } })).toEqual([
      'task_data.buttons.0.index',
    ]);
    expect(Object.keys((await createTask(agent, '+34600000122', { message: 'Hi', header: { type: 'text', text: 'x' } }).expect(422)).body.errors)).toEqual(['task_data.header']);
  });

  it('checks a waiting task’s new task_data through the executor on PATCH: 422 at the path and the task unchanged, a fitting one taken', async () => {
    const { agent } = await chatappAgent();
    const template = await syncedTemplate('edit_values', 2);
    const other = await syncedTemplate('edit_other', 1);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const data = { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', 'Monday'] };
    const created = await kit.api
      .post('/api/v1/tasks')
      .send({ type: 'send_message', agent_uuid: agent, contact: { phone_number: '+34600000130' }, task_data: data, scheduled_at: later, title: 'Reminder' })
      .expect(201);
    const uuid = created.body.data.uuid as string;
    const patch = (body: Record<string, unknown>) => kit.api.patch(`/api/v1/tasks/${uuid}`).send(body);
    const unchanged = async () => {
      const task = (await kit.api.get(`/api/v1/tasks/${uuid}`).expect(200)).body.data;
      expect(task).toMatchObject({ title: 'Reminder', status: 'scheduled', task_data: data });
    };

    // Too few values for the template: refused at the path, the title sent with it not taken either.
    const tooFew = await patch({ title: 'Changed', task_data: { ...data, variables: ['Ana'] } }).expect(422);
    expect(Object.keys(tooFew.body.errors)).toEqual(['task_data.variables']);
    await unchanged();
    // A template of no one, and a value that is not one, each at its path.
    expect(Object.keys((await patch({ task_data: { ...data, template_uuid: '0b5c0f0e-1111-4222-8333-444455556666' } }).expect(422)).body.errors)).toEqual(['task_data.template_uuid']);
    expect(Object.keys((await patch({ task_data: { ...data, variables: ['Ana', { type: 'location' }] } }).expect(422)).body.errors)).toEqual(['task_data.variables.1']);
    expect(Object.keys((await patch({ task_data: { message: '  ' } }).expect(422)).body.errors)).toEqual(['task_data.message']);
    // With the generic checks' problems, all in one answer.
    const both = await patch({ priority: 3, expires_at: new Date(Date.now() + 60_000).toISOString(), task_data: { ...data, variables: ['Ana'] } }).expect(422);
    expect(Object.keys(both.body.errors).sort()).toEqual(['expires_at', 'task_data.variables']);
    await unchanged();

    // What fits the (other) template is taken.
    const fitting = { message_type: 'chatapp_template', template_uuid: other.uuid, variables: ['Bea'] };
    const taken = await patch({ title: 'Changed', task_data: fitting }).expect(200);
    expect(taken.body.data).toMatchObject({ title: 'Changed', task_data: fitting });
    await patch({ task_data: { message: 'Plain text now' } }).expect(200);
    // An edit without task_data does not check the stored one again.
    await patch({ title: 'Again' }).expect(200);
  });

  it('sends a template’s currency and date_time body values in the Cloud API’s shape, checked at creation', async () => {
    const { agent } = await chatappAgent();
    const template = await syncedTemplate('invoice_due', 3, { components: [{ type: 'BODY', text: 'Your total of {{1}} is due on {{2}}, {{3}}.' }] });
    const named = await syncedTemplate('invoice_named', 0, {
      components: [{ type: 'HEADER', format: 'TEXT', text: 'Invoice {{number}}' }, { type: 'BODY', text: 'Pay {{amount}} by {{due}}.' }],
    });
    const currency = { type: 'currency', currency: { fallback_value: '€12.50', code: 'EUR', amount_1000: 12500 } };
    const dateTime = { type: 'date_time', date_time: { fallback_value: 'May 3, 2027' } };
    const created = await createTask(agent, '+34600000140', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: [currency, dateTime, 'Ana'] }).expect(201);
    const task = await finished(created.body.data.uuid);
    expect(task).toMatchObject({ status: 'completed', last_error: null });
    const [sent] = graph.state.templateSends.filter((s) => s.to === '34600000140');
    expect((sent.request.template as any).components).toEqual([
      {
        type: 'body',
        parameters: [
          { type: 'currency', currency: { fallback_value: '€12.50', code: 'EUR', amount_1000: 12500 } },
          { type: 'date_time', date_time: { fallback_value: 'May 3, 2027' } },
          { type: 'text', text: 'Ana' },
        ],
      },
    ]);
    // The conversation shows what the customer reads: the fallback texts.
    const [message] = await messagesOf(task.result.conversation_uuid);
    expect(message.content).toBe('Your total of €12.50 is due on May 3, 2027, Ana.');

    // Named placeholders carry their names; the header's stays text.
    const namedTask = await createTask(agent, '+34600000141', {
      message_type: 'chatapp_template',
      template_uuid: named.uuid,
      variables: { header: ['A-12'], body: [{ type: 'currency', currency: { fallback_value: '$5', code: 'USD', amount_1000: 5000 } }, dateTime] },
    }).expect(201);
    expect((await finished(namedTask.body.data.uuid)).status).toBe('completed');
    const [namedSend] = graph.state.templateSends.filter((s) => s.to === '34600000141');
    expect((namedSend.request.template as any).components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'A-12', parameter_name: 'number' }] },
      {
        type: 'body',
        parameters: [
          { type: 'currency', currency: { fallback_value: '$5', code: 'USD', amount_1000: 5000 }, parameter_name: 'amount' },
          { type: 'date_time', date_time: { fallback_value: 'May 3, 2027' }, parameter_name: 'due' },
        ],
      },
    ]);

    // What the Cloud API would not take is refused at creation, each at its path.
    const refused = async (first: unknown, second: unknown = dateTime) =>
      Object.keys((await createTask(agent, '+34600000142', { message_type: 'chatapp_template', template_uuid: template.uuid, variables: [first, second, 'Ana'] }).expect(422)).body.errors).sort();
    const withCurrency = (changes: Record<string, unknown>) => ({ type: 'currency', currency: { ...currency.currency, ...changes } });
    expect(await refused(withCurrency({ code: 'eur' }))).toEqual(['task_data.variables.0.currency.code']);
    expect(await refused(withCurrency({ code: 'ABC' }))).toEqual(['task_data.variables.0.currency.code']);
    expect(await refused(withCurrency({ amount_1000: 12.5 }))).toEqual(['task_data.variables.0.currency.amount_1000']);
    expect(await refused(withCurrency({ amount_1000: '12500' }))).toEqual(['task_data.variables.0.currency.amount_1000']);
    expect(await refused(withCurrency({ fallback_value: '' }))).toEqual(['task_data.variables.0.currency.fallback_value']);
    expect(await refused(withCurrency({ symbol: '€' }))).toEqual(['task_data.variables.0.currency.symbol']);
    expect(await refused({ type: 'currency' })).toEqual(['task_data.variables.0.currency']);
    expect(await refused({ type: 'location', location: {} })).toEqual(['task_data.variables.0']);
    expect(await refused(currency, { type: 'date_time', date_time: {} })).toEqual(['task_data.variables.1.date_time.fallback_value']);
    expect(await refused(currency, { type: 'date_time', date_time: { fallback_value: 'May 3', year: 2027 } })).toEqual(['task_data.variables.1.date_time.year']);
    expect(await refused(currency, { ...dateTime, text: 'x' })).toEqual(['task_data.variables.1.text']);
    const inHeader = await createTask(agent, '+34600000142', { message_type: 'chatapp_template', template_uuid: named.uuid, variables: { header: [currency], body: ['5', 'May'] } }).expect(422);
    expect(Object.keys(inHeader.body.errors)).toEqual(['task_data.variables.header.0.type']);
  });

  it('the local Graph server refuses currency and date_time parameters the Cloud API would not take', async () => {
    await syncedTemplate('fake_checks', 1);
    const send = (parameter: Record<string, unknown>) =>
      fetch(`${graph.apiBaseUrl}/${graph.state.phoneNumberId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${graph.state.accessToken}` },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: '34600000150', type: 'template', template: { name: 'fake_checks', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [parameter] }] } }),
      });
    expect((await send({ type: 'currency', currency: { fallback_value: '$5', code: 'usd', amount_1000: 5000 } })).status).toBe(400);
    expect((await send({ type: 'currency', currency: { fallback_value: '$5', code: 'USD', amount_1000: 5.5 } })).status).toBe(400);
    expect((await send({ type: 'date_time', date_time: {} })).status).toBe(400);
    expect((await send({ type: 'date_time', date_time: { fallback_value: 'May 3' } })).status).toBe(200);
  });

  it('the executor’s check of task_data names each problem at its path', async () => {
    await chatappAgent();
    const template = await syncedTemplate('check_values', 2);
    const check = (taskData: Record<string, unknown>) => runInContext({ tenant: kit.tenant }, () => checkSendMessageData(kit.kernel.orm.em.fork(), taskData));
    expect(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', 'Monday'] })).toEqual({});
    expect(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: { body: ['Ana', 7] } })).toEqual({});
    expect(Object.keys(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana'] }))).toEqual(['task_data.variables']);
    expect(Object.keys(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['Ana', ''] }))).toEqual(['task_data.variables.1']);
    expect(Object.keys(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: 'Ana' }))).toEqual(['task_data.variables']);
    expect(Object.keys(await check({ message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['a', 'b'], channel: 'sms' }))).toEqual(['task_data.channel']);
    expect(await check({ message: 'Hi' })).toEqual({});
    expect(Object.keys(await check({ message: '   ' }))).toEqual(['task_data.message']);
    // Another tenant's template is as unknown as none.
    const other = await kit.createTenant('other-checker');
    const elsewhere = await runInContext({ tenant: other.tenant }, () => checkSendMessageData(kit.kernel.orm.em.fork(), { message_type: 'chatapp_template', template_uuid: template.uuid, variables: ['a', 'b'] }));
    expect(Object.keys(elsewhere)).toEqual(['task_data.template_uuid']);
  });
});
