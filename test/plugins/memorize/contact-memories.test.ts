import path from 'node:path';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel, type TestTenant } from '../../../core/testing';
import { deleteExpiredMemories } from '../../../plugins/memorize/memory';

const PLUGINS = ['agents', 'conversations', 'contacts', 'memorize'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const isSummary = (request: { body: any }) => request.body?.response_format?.json_schema?.name === 'contact_memory';

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

async function agentRemembering(api: TestTenant['api'], enabled: boolean): Promise<string> {
  const agent = (await api.post('/api/v1/agents').send({ name: 'Memo' }).expect(201)).body.data.agent_uuid;
  await api.post(`/api/v1/agents/${agent}/memorize/assign`).expect((res) => expect([200, 201]).toContain(res.status));
  await api
    .put(`/api/v1/agents/${agent}/memorize`)
    .send({ enabled, retention_days: 7, summary_prompt: 'What does the contact prefer?', fields: [{ key: 'preferred_time', description: 'When the contact likes to be called' }] })
    .expect(200);
  return agent;
}

async function contact(api: TestTenant['api']): Promise<string> {
  return (await api.post('/api/v1/contacts').send({ name: 'Kim', email: `kim-${Date.now()}-${Math.random()}@example.com` }).expect(201)).body.data.uuid;
}

/** A conversation with the given customer lines, then closed: its session closes and memorize sees `session.closed`. */
async function closedConversation(api: TestTenant['api'], agent: string, contactUuid: string | null, lines: string[]): Promise<string> {
  const conversation = (await api.post('/api/v1/conversations').send({ agent_uuid: agent, contact_uuid: contactUuid, channel: 'chat' }).expect(201)).body.data.uuid;
  for (const content of lines) await api.post(`/api/v1/conversations/${conversation}/messages`).send({ sender: 'customer', content }).expect(201);
  await api.post(`/api/v1/conversations/${conversation}/close`).expect(200);
  return conversation;
}

const memoriesOf = async (api: TestTenant['api'], contactUuid: string) => (await api.get(`/api/v1/contacts/${contactUuid}/memories`).expect(200)).body.data.items;

describe('contact memories', () => {
  it('a closed session becomes a memory: the summary prompt and fields go to the model, values come back', async () => {
    const agent = await agentRemembering(kit.api, true);
    const kim = await contact(kit.api);
    model.reply({ json: { summary: 'Kim prefers calls after 6pm.', fields: { preferred_time: 'after 6pm' } } });
    await closedConversation(kit.api, agent, kim, ['Please only call me after 6pm']);
    const [memory] = await waitFor(() => memoriesOf(kit.api, kim), (items) => items.length === 1);
    expect(memory).toMatchObject({ agent_uuid: agent, summary: 'Kim prefers calls after 6pm.', fields: { preferred_time: 'after 6pm' } });
    expect(Date.parse(memory.expires_at) - Date.parse(memory.created_at)).toBe(7 * 86_400_000);
    const request = model.requests.find(isSummary)!;
    expect(request.body.messages[0].content).toContain('What does the contact prefer?');
    expect(request.body.messages[0].content).toContain('preferred_time: When the contact likes to be called');
    expect(request.body.messages[1].content).toContain('customer: Please only call me after 6pm');
  });

  it('nothing is asked or kept when memorize is off, or the conversation has no contact', async () => {
    const off = await agentRemembering(kit.api, false);
    const on = await agentRemembering(kit.api, true);
    const kim = await contact(kit.api);
    const before = model.requests.length;
    const handled = async () =>
      (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_inbox where consumer = 'memorize.summarize-sessions'`))[0].n as number;
    const handledBefore = await handled();
    await closedConversation(kit.api, off, kim, ['Remember me']);
    await closedConversation(kit.api, on, null, ['Nobody knows me']);
    // Both sessions were handled (the consumer recorded their closing events) without a model call.
    await waitFor(handled, (n) => n === handledBefore + 2);
    expect(model.requests.length).toBe(before);
    expect(await memoriesOf(kit.api, kim)).toEqual([]);
  });

  it('expired memories are not listed nor recalled, and the expiry job deletes them', async () => {
    const agent = await agentRemembering(kit.api, true);
    const kim = await contact(kit.api);
    model.reply({ json: { summary: 'Old news.', fields: { preferred_time: null } } });
    await closedConversation(kit.api, agent, kim, ['Something']);
    await waitFor(() => memoriesOf(kit.api, kim), (items) => items.length === 1);
    const connection = kit.kernel.orm.em.fork().getConnection();
    await connection.execute(`update contact_memories set expires_at = now() - interval '1 second' where contact_uuid = ?`, [kim]);
    expect(await memoriesOf(kit.api, kim)).toEqual([]);
    expect(await deleteExpiredMemories({ fork: () => kit.kernel.orm.em.fork() } as any)).toBeGreaterThanOrEqual(1);
    expect((await connection.execute(`select count(*)::int as n from contact_memories where contact_uuid = ?`, [kim]))[0].n).toBe(0);
  });

  it('deleting the contact deletes its memories; one memory can be forgotten on its own', async () => {
    const agent = await agentRemembering(kit.api, true);
    const kim = await contact(kit.api);
    model.reply({ json: { summary: 'First.', fields: { preferred_time: null } } }, { json: { summary: 'Second.', fields: { preferred_time: null } } });
    await closedConversation(kit.api, agent, kim, ['One']);
    await closedConversation(kit.api, agent, kim, ['Two']);
    const items = await waitFor(() => memoriesOf(kit.api, kim), (found) => found.length === 2);
    await kit.api.delete(`/api/v1/contacts/${kim}/memories/${items[0].memory_uuid}`).expect(200);
    expect((await memoriesOf(kit.api, kim)).map((m: any) => m.memory_uuid)).toEqual([items[1].memory_uuid]);
    const other = await kit.createTenant();
    await other.api.delete(`/api/v1/contacts/${kim}/memories/${items[1].memory_uuid}`).expect(404);

    await kit.api.delete(`/api/v1/contacts/${kim}`).expect(200);
    const connection = kit.kernel.orm.em.fork().getConnection();
    await waitFor(async () => (await connection.execute(`select count(*)::int as n from contact_memories where contact_uuid = ?`, [kim]))[0].n, (n: number) => n === 0);
  });
});
