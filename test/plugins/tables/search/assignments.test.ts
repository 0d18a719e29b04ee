import { setTimeout as sleep } from 'node:timers/promises';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, addRecords, createAgent, createTable } from './search-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

const knowledgeOf = async (agent: string) => (await kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.settings.knowledge;
const assignmentsOf = async (table: string) => (await kit.api.get(`/api/v1/data/${table}/assignments`).expect(200)).body.data;

describe('POST /api/v1/data/{uuid}/assign', () => {
  it('assigns a table, changes the mode when assigned again, and the agent lists it in settings.knowledge', async () => {
    const agent = await createAgent(kit.api, 'Support bot');
    const table = await createTable(kit.api, 'FAQ', []);
    const first = await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
    expect(first.body).toEqual({ success: true, message: 'Table assigned to the agent', data: { table_uuid: table, agent_uuid: agent, mode: 'knowledge_base' } });
    expect(await knowledgeOf(agent)).toEqual({ tables: [{ table_uuid: table, name: 'FAQ', mode: 'knowledge_base' }] });

    const again = await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
    expect(again.body).toEqual({ success: true, message: 'Assignment updated', data: { table_uuid: table, agent_uuid: agent, mode: 'lookup' } });
    expect(await knowledgeOf(agent)).toEqual({ tables: [{ table_uuid: table, name: 'FAQ', mode: 'lookup' }] });
    const list = await assignmentsOf(table);
    expect(list.items).toEqual([
      { table_uuid: table, agent_uuid: agent, agent_name: 'Support bot', mode: 'lookup', created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect(list.pagination).toMatchObject({ total: 1, current_page: 1 });
  });

  it('gives an agent many tables (listed by name) and a table many agents', async () => {
    const [first, second] = [await createAgent(kit.api, 'One'), await createAgent(kit.api, 'Two')];
    const zebra = await createTable(kit.api, 'Zebra facts', []);
    const apple = await createTable(kit.api, 'Apple facts', []);
    for (const [table, agent, mode] of [
      [zebra, first, 'knowledge_base'],
      [apple, first, 'lookup'],
      [zebra, second, 'knowledge_base'],
    ]) {
      await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode }).expect(200);
    }
    expect(await knowledgeOf(first)).toEqual({
      tables: [
        { table_uuid: apple, name: 'Apple facts', mode: 'lookup' },
        { table_uuid: zebra, name: 'Zebra facts', mode: 'knowledge_base' },
      ],
    });
    expect(await knowledgeOf(second)).toEqual({ tables: [{ table_uuid: zebra, name: 'Zebra facts', mode: 'knowledge_base' }] });
    // Every agent of a list carries its own tables (loaded in one batch for the page).
    const agents = (await kit.api.get('/api/v1/agents?per_page=100').expect(200)).body.data.items as Array<{ agent_uuid: string; settings: { knowledge: unknown } }>;
    expect(agents.find((agent) => agent.agent_uuid === second)!.settings.knowledge).toEqual({ tables: [{ table_uuid: zebra, name: 'Zebra facts', mode: 'knowledge_base' }] });

    const page = (await kit.api.get(`/api/v1/data/${zebra}/assignments?per_page=1&page=2`).expect(200)).body.data;
    expect(page.items.map((item: { agent_uuid: string }) => item.agent_uuid)).toEqual([second]);
    expect(page.pagination).toMatchObject({ total: 2, per_page: 1, current_page: 2, has_more: false });
  });

  it('shows an agent without tables with an empty list', async () => {
    expect(await knowledgeOf(await createAgent(kit.api, 'Lonely'))).toEqual({ tables: [] });
  });

  it('answers 404 for an unknown agent, another tenant’s agent, and an unknown table', async () => {
    const table = await createTable(kit.api, 'Guarded', []);
    const unknown = await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: '01960000-0000-7000-8000-000000000000', mode: 'lookup' }).expect(404);
    expect(unknown.body).toEqual({ success: false, message: 'Agent not found', data: [] });
    const stranger = await kit.createTenant();
    const foreignAgent = await createAgent(stranger.api, 'Foreign');
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: foreignAgent, mode: 'lookup' }).expect(404);
    const agent = await createAgent(kit.api, 'Mine');
    const missing = await kit.api.post('/api/v1/data/01960000-0000-7000-8000-000000000000/assign').send({ agent_uuid: agent, mode: 'lookup' }).expect(404);
    expect(missing.body.message).toBe('Data not found');
    expect((await assignmentsOf(table)).items).toEqual([]);
  });

  it('validates the body (422)', async () => {
    const table = await createTable(kit.api, 'Validated', []);
    const agent = await createAgent(kit.api, 'Validator');
    const assign = (body: object) => kit.api.post(`/api/v1/data/${table}/assign`).send(body).expect(422);
    expect((await assign({ agent_uuid: agent, mode: 'search' })).body.errors).toHaveProperty('mode');
    expect((await assign({ agent_uuid: 'not-a-uuid', mode: 'lookup' })).body.errors).toHaveProperty('agent_uuid');
    const missing = (await assign({})).body.errors;
    expect(missing).toHaveProperty('agent_uuid');
    expect(missing).toHaveProperty('mode');
    expect(JSON.stringify((await assign({ agent_uuid: agent, mode: 'lookup', priority: 1 })).body.errors)).toContain('priority');
  });
});

describe('DELETE /api/v1/data/{uuid}/assign/{agent_uuid}', () => {
  it('unassigns, idempotently', async () => {
    const agent = await createAgent(kit.api, 'Leaving');
    const table = await createTable(kit.api, 'Handbook', []);
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
    const removed = await kit.api.delete(`/api/v1/data/${table}/assign/${agent}`).expect(200);
    expect(removed.body).toEqual({ success: true, message: 'Table unassigned from the agent', data: { deleted: true } });
    expect(await knowledgeOf(agent)).toEqual({ tables: [] });
    const again = await kit.api.delete(`/api/v1/data/${table}/assign/${agent}`).expect(200);
    expect(again.body).toEqual({ success: true, message: 'Table was not assigned to the agent', data: { deleted: false } });
  });

  it('answers 404 for an unknown agent or table', async () => {
    const table = await createTable(kit.api, 'Other', []);
    await kit.api.delete(`/api/v1/data/${table}/assign/01960000-0000-7000-8000-000000000000`).expect(404);
    const agent = await createAgent(kit.api, 'Someone');
    await kit.api.delete(`/api/v1/data/01960000-0000-7000-8000-000000000000/assign/${agent}`).expect(404);
  });
});

describe('assignments follow their agent and their table', () => {
  it('go when the agent is deleted', async () => {
    const agent = await createAgent(kit.api, 'Doomed');
    const table = await createTable(kit.api, 'Survivor', []);
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
    await kit.api.delete(`/api/v1/agents/${agent}`).expect(200);
    const deadline = Date.now() + 10_000;
    while ((await assignmentsOf(table)).items.length > 0) {
      if (Date.now() > deadline) throw new Error('the deleted agent’s assignment is still there');
      await sleep(50);
    }
  });

  it('go when the table is deleted', async () => {
    const agent = await createAgent(kit.api, 'Stays');
    const table = await createTable(kit.api, 'Doomed table', []);
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
    await kit.api.delete(`/api/v1/data/${table}`).expect(200);
    expect(await knowledgeOf(agent)).toEqual({ tables: [] });
  });
});

describe('POST /api/v1/agents/{uuid}/knowledge/search', () => {
  let agent: string;
  let manual: string;
  let prices: string;
  beforeAll(async () => {
    agent = await createAgent(kit.api, 'Searcher');
    manual = await createTable(kit.api, 'Manual', [{ name: 'text', data_type: 'text' }]);
    prices = await createTable(kit.api, 'Prices', [
      { name: 'item', data_type: 'text' },
      { name: 'price', data_type: 'number' },
    ]);
    const unassigned = await createTable(kit.api, 'Unassigned', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, manual, [{ text: 'To descale the espresso machine, run the cleaning program.' }, { text: 'The grinder has twelve settings.' }]);
    await addRecords(kit.api, prices, [{ item: 'Espresso machine', price: 499 }, { item: 'Milk frother', price: 59 }]);
    await addRecords(kit.api, unassigned, [{ text: 'Espresso machine secrets nobody may read' }]);
    await kit.api.post(`/api/v1/data/${manual}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
    await kit.api.post(`/api/v1/data/${prices}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
  });

  const search = (body: object, uuid = agent) => kit.api.post(`/api/v1/agents/${uuid}/knowledge/search`).send(body);

  it('ranks the records of all the agent’s tables together, and only of its tables', async () => {
    const res = await search({ query: 'espresso machine' }).expect(200);
    expect(res.body.success).toBe(true);
    const hits = res.body.data.items as Array<{ table_name: string; values: Record<string, unknown> }>;
    expect(res.body.data.count).toBe(2);
    expect(hits.map((hit) => hit.table_name).sort()).toEqual(['Manual', 'Prices']);
    expect(hits.find((hit) => hit.table_name === 'Prices')!.values).toEqual({ item: 'Espresso machine', price: 499 });
  });

  it('keeps to the tables of one mode when asked', async () => {
    const res = await search({ query: 'espresso', mode: 'knowledge_base' }).expect(200);
    expect(res.body.data.items.map((hit: { table_uuid: string }) => hit.table_uuid)).toEqual([manual]);
    const lookup = await search({ query: 'espresso', mode: 'lookup', limit: 1 }).expect(200);
    expect(lookup.body.data.items.map((hit: { table_uuid: string }) => hit.table_uuid)).toEqual([prices]);
  });

  it('answers no items for an agent without tables', async () => {
    const res = await search({ query: 'espresso' }, await createAgent(kit.api, 'Empty')).expect(200);
    expect(res.body).toEqual({ success: true, message: '0 matching records', data: { items: [], count: 0 } });
  });

  it('answers 404 for an unknown agent and for another tenant’s', async () => {
    const unknown = await search({ query: 'espresso' }, '01960000-0000-7000-8000-000000000000').expect(404);
    expect(unknown.body).toEqual({ success: false, message: 'Agent not found', data: [] });
    const stranger = await kit.createTenant();
    await stranger.api.post(`/api/v1/agents/${agent}/knowledge/search`).send({ query: 'espresso' }).expect(404);
  });

  it('validates the body (422)', async () => {
    expect((await search({ query: 'espresso', mode: 'everything' }).expect(422)).body.errors).toHaveProperty('mode');
    expect((await search({ query: '' }).expect(422)).body.errors).toHaveProperty('query');
    expect((await search({ query: 'espresso', limit: 51 }).expect(422)).body.errors).toHaveProperty('limit');
  });
});
