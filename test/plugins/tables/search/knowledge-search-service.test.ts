import { Type, coreServices, defineRoute, definePlugin } from '../../../../core';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { knowledgeSearchRef } from '../../../../plugins/tables';
import { AGENTS, TABLES, addRecords, createAgent, createTable } from './search-helpers';

/** A plugin that uses the KnowledgeSearch service as the agent runtime and flows do, behind one route. */
const consumer = definePlugin({
  id: 'knowledge-consumer',
  dependsOn: ['tables'],
  deps: { http: coreServices.http, knowledge: knowledgeSearchRef },
  init({ http, knowledge }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/knowledge-consumer',
        summary: 'Calls KnowledgeSearch',
        body: Type.Object({
          call: Type.String(),
          uuid: Type.String(),
          query: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Number()),
          mode: Type.Optional(Type.Union([Type.Literal('knowledge_base'), Type.Literal('lookup')])),
        }),
        handler: async ({ body }) => {
          if (body.call === 'searchTable') return { data: await knowledge.searchTable(body.uuid, body.query!, { limit: body.limit }) };
          if (body.call === 'searchAgent') return { data: await knowledge.searchAgent(body.uuid, body.query!, { limit: body.limit, mode: body.mode }) };
          return { data: await knowledge.tablesOf(body.uuid) };
        },
      }),
    );
  },
});

let kit: TestKernel;
let agent: string;
let guide: string;
let parts: string;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, consumer] });
  agent = await createAgent(kit.api, 'Mechanic');
  guide = await createTable(kit.api, 'Repair guide', [{ name: 'text', data_type: 'text' }]);
  parts = await createTable(kit.api, 'Parts', [{ name: 'part', data_type: 'text' }]);
  await addRecords(
    kit.api,
    guide,
    Array.from({ length: 60 }, (_, index) => ({ text: `Step ${index + 1}: tighten the bicycle chain, then check the brakes` })),
  );
  await addRecords(kit.api, parts, [{ part: 'Bicycle chain, 11 speed' }]);
  await kit.api.post(`/api/v1/data/${guide}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
  await kit.api.post(`/api/v1/data/${parts}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
});
afterAll(() => kit?.stop());

const call = (body: object) => kit.api.post('/api/v1/knowledge-consumer').send(body);

describe('the KnowledgeSearch service', () => {
  it('searches a table like the route does, with the limit kept within 1..50 (default 10)', async () => {
    const viaService = (await call({ call: 'searchTable', uuid: guide, query: 'bicycle chian' }).expect(200)).body.data;
    const viaRoute = (await kit.api.post(`/api/v1/data/${guide}/search`).send({ query: 'bicycle chian' }).expect(200)).body.data.items;
    expect(viaService).toHaveLength(10);
    expect(viaService).toEqual(viaRoute);
    expect((await call({ call: 'searchTable', uuid: guide, query: 'chain', limit: 500 }).expect(200)).body.data).toHaveLength(50);
    expect((await call({ call: 'searchTable', uuid: guide, query: 'chain', limit: 0 }).expect(200)).body.data).toHaveLength(1);
  });

  it('throws TableNotFoundError (a 404) for an unknown table and for another tenant’s', async () => {
    const res = await call({ call: 'searchTable', uuid: '01960000-0000-7000-8000-000000000000', query: 'chain' }).expect(404);
    expect(res.body.message).toBe('Data not found');
    const stranger = await kit.createTenant();
    await stranger.api.post('/api/v1/knowledge-consumer').send({ call: 'searchTable', uuid: guide, query: 'chain' }).expect(404);
  });

  it('searches an agent’s tables, optionally of one mode, and lists them', async () => {
    const all = (await call({ call: 'searchAgent', uuid: agent, query: 'chain speed', limit: 5 }).expect(200)).body.data;
    expect(all.map((hit: { table_uuid: string }) => hit.table_uuid)).toEqual([parts, guide, guide, guide, guide]);
    const lookup = (await call({ call: 'searchAgent', uuid: agent, query: 'bicycle chain', mode: 'lookup' }).expect(200)).body.data;
    expect(lookup.map((hit: { values: unknown }) => hit.values)).toEqual([{ part: 'Bicycle chain, 11 speed' }]);
    expect((await call({ call: 'tablesOf', uuid: agent }).expect(200)).body.data).toEqual([
      { table_uuid: parts, name: 'Parts', mode: 'lookup' },
      { table_uuid: guide, name: 'Repair guide', mode: 'knowledge_base' },
    ]);
  });

  it('finds nothing for an agent of another tenant, or one without tables', async () => {
    const stranger = await kit.createTenant();
    const res = await stranger.api.post('/api/v1/knowledge-consumer').send({ call: 'searchAgent', uuid: agent, query: 'chain' }).expect(200);
    expect(res.body.data).toEqual([]);
    expect((await stranger.api.post('/api/v1/knowledge-consumer').send({ call: 'tablesOf', uuid: agent }).expect(200)).body.data).toEqual([]);
    expect((await call({ call: 'searchAgent', uuid: await createAgent(kit.api, 'Idle'), query: 'chain' }).expect(200)).body.data).toEqual([]);
  });
});
