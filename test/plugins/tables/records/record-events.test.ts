import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, busProbe, createRecords, createTable, eventually, type SeenMessage } from './record-test-helpers';

const probe = busProbe();
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, probe.plugin] });
});
afterAll(() => kit?.stop());

const eventsOf = (table: string): SeenMessage[] => probe.seen.filter((m) => m.topic.startsWith('tables.record.') && m.payload.table_uuid === table);
/** Record events of the table still in the outbox: on the in-process bus a row goes only once every consumer (the probe) handled it. */
const unhandled = async (table: string): Promise<number> =>
  (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where topic like 'tables.record.%' and payload->>'table_uuid' = ?`, [table]))[0].n;

/** Waits for `count` events of the table, then until none is left undelivered, so that any extra one would be seen. */
async function eventsAfter(table: string, count: number): Promise<SeenMessage[]> {
  await eventually(() => eventsOf(table).length >= count);
  await eventually(async () => (await unhandled(table)) === 0);
  return eventsOf(table);
}

/**
 * The events by kind (created, updated, deleted), each kind in the order the probe saw it. The bus
 * promises no order between messages of different commits (a quick consumer runs two batches at
 * once, so under load a later commit's event can be handled first); each kind here comes from one
 * request's commit, whose messages are claimed and handled together, in the order published.
 */
const KINDS = ['tables.record.created', 'tables.record.updated', 'tables.record.deleted'];
const inPublishOrder = (events: SeenMessage[]): SeenMessage[] => [...events].sort((a, b) => KINDS.indexOf(a.topic) - KINDS.indexOf(b.topic));

describe('record events on the bus', () => {
  it('publishes created, updated (with the changed columns) and deleted, for the tenant, with the record as the API shows it', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' }, 'Events');
    const record = (await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ values: { name: 'Widget', price: 1 } }).expect(201)).body.data;
    const updated = (await kit.api.put(`/api/v1/data/${table.uuid}/records/${record.uuid}`).send({ values: { name: 'Widget', price: 2 } }).expect(200)).body.data;
    await kit.api.delete(`/api/v1/data/${table.uuid}/records/${record.uuid}`).expect(200);
    expect(inPublishOrder(await eventsAfter(table.uuid, 3))).toEqual([
      { topic: 'tables.record.created', tenant: kit.tenant.uuid, payload: { table_uuid: table.uuid, table_name: 'Events', record } },
      { topic: 'tables.record.updated', tenant: kit.tenant.uuid, payload: { table_uuid: table.uuid, table_name: 'Events', record: updated, changed: ['price'] } },
      { topic: 'tables.record.deleted', tenant: kit.tenant.uuid, payload: { table_uuid: table.uuid, table_name: 'Events', record_uuid: record.uuid } },
    ]);
  });

  it('publishes nothing for an update that changes nothing, and nothing for a refused write', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const [record] = await createRecords(kit.api, table.uuid, [{ name: 'Widget', price: 1 }]);
    const same = (await kit.api.put(`/api/v1/data/${table.uuid}/records/${record.uuid}`).send({ values: { NAME: 'Widget', price: 1.0 } }).expect(200)).body.data;
    expect(same.updated_at).toBe((record as any).updated_at);
    await kit.api.put(`/api/v1/data/${table.uuid}/records/${record.uuid}`).send({ values: { price: 'two' } }).expect(422);
    await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: [{ values: { name: 'ok' } }, { values: { price: 'bad' } }] }).expect(422);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [record.uuid, '01960000-0000-7000-8000-00000000dead'] }).expect(422);
    // A later event proves the bus delivered everything published before it.
    await kit.api.put(`/api/v1/data/${table.uuid}/records/${record.uuid}`).send({ values: { price: null } }).expect(200);
    const events = inPublishOrder(await eventsAfter(table.uuid, 2));
    expect(events.map((m) => [m.topic, m.payload.changed])).toEqual([
      ['tables.record.created', undefined],
      ['tables.record.updated', ['price']],
    ]);
  });

  it('publishes one event per record of a bulk write', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    const created = await createRecords(kit.api, table.uuid, [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await kit.api
      .put(`/api/v1/data/${table.uuid}/records`)
      .send({ records: [{ uuid: created[0].uuid, values: { name: 'A' } }, { uuid: created[1].uuid, values: { name: 'b' } }] })
      .expect(200);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [created[1].uuid, created[2].uuid] }).expect(200);
    const events = inPublishOrder(await eventsAfter(table.uuid, 6));
    expect(events.map((m) => [m.topic, m.payload.record?.values.name ?? m.payload.record_uuid])).toEqual([
      ['tables.record.created', 'a'],
      ['tables.record.created', 'b'],
      ['tables.record.created', 'c'],
      ['tables.record.updated', 'A'],
      ['tables.record.deleted', created[1].uuid],
      ['tables.record.deleted', created[2].uuid],
    ]);
  });
});
