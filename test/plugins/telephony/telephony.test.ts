import { startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as telephonyFixtures } from '../../../plugins/telephony/testing';
import { TELEPHONY_PLUGINS, agentWith, numberSource, type Json } from './telephony-test-kit';

const CONNECTORS = '/api/v1/pbx_extension_connectors';
const TRUNKS = '/api/v1/channels/sip-trunk/connections';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: TELEPHONY_PLUGINS });
});
afterAll(() => kit?.stop());

const freshNumber = numberSource(4155554000);

describe('telephony: an agent’s deletion', () => {
  it('leaves its connectors and trunks without the agent and inactive, and touches no other agent’s', async () => {
    const number = freshNumber();
    const doomed = await agentWith(kit.api, [number], 'Doomed');
    const kept = await agentWith(kit.api, [], 'Kept');
    const pbx = { registrar_server: 'pbx.example.com', username_extension: '201' };
    const connector = (await kit.api.post(CONNECTORS).send({ name: 'Desk', agent_uuid: doomed, phone_number: number, pbx }).expect(201)).body.data;
    const trunk = (await kit.api.post(TRUNKS).send({ name: 'Trunk', agent_uuid: doomed, phone_numbers: [number], gateway: 'sip.carrier.example' }).expect(201)).body.data;
    const bystander = (await kit.api.post(CONNECTORS).send({ name: 'Other desk', agent_uuid: kept, pbx }).expect(201)).body.data;
    const otherTrunk = (await kit.api.post(TRUNKS).send({ name: 'Other trunk', agent_uuid: kept, gateway: 'sip.carrier.example' }).expect(201)).body.data;

    await kit.api.delete(`/api/v1/agents/${doomed}`).expect(200);

    const readConnector = () => kit.api.get(`${CONNECTORS}/${connector.pbx_extension_connector_uuid}`).then((res) => res.body.data as Json);
    const released = await waitFor(readConnector, (data) => data.agent_uuid === null);
    expect(released).toEqual({ ...connector, agent_uuid: null, agent_name: null, status: 'inactive', updated_at: expect.any(String) });
    const releasedTrunk = await waitFor(
      () => kit.api.get(`${TRUNKS}/${trunk.uuid}`).then((res) => res.body.data as Json),
      (data) => data.agent_uuid === null,
    );
    expect(releasedTrunk).toEqual({ ...trunk, agent_uuid: null, agent_name: null, status: 'inactive', updated_at: expect.any(String) });
    // The number stays: the configuration is the tenant's, ready for another agent.
    expect(releasedTrunk.phone_numbers).toEqual([number]);
    expect((await kit.api.get(`${CONNECTORS}?agent_uuid=${doomed}`).expect(200)).body.data.items).toEqual([]);

    await kit.outboxDrained();
    expect((await kit.api.get(`${CONNECTORS}/${bystander.pbx_extension_connector_uuid}`).expect(200)).body.data).toEqual(bystander);
    expect((await kit.api.get(`${TRUNKS}/${otherTrunk.uuid}`).expect(200)).body.data).toEqual(otherTrunk);
  });
});

describe('telephony: the routes and the schema', () => {
  it('the cross-tenant sweep passes on the telephony routes', async () => {
    const routes = kit.kernel.registry.list().filter((route) => route.path.startsWith(CONNECTORS) || route.path.startsWith(TRUNKS));
    const sweepKit = { ...kit, kernel: { ...kit.kernel, registry: { list: () => routes } } } as unknown as TestKernel;
    const results = await sweepCrossTenant(sweepKit, { ...agentFixtures, ...telephonyFixtures });
    expect(new Set(results.map((result) => result.route))).toEqual(
      new Set([
        `GET ${CONNECTORS}/:uuid`,
        `PATCH ${CONNECTORS}/:uuid`,
        `DELETE ${CONNECTORS}/:uuid`,
        `GET ${TRUNKS}/:uuid`,
        `PATCH ${TRUNKS}/:uuid`,
        `DELETE ${TRUNKS}/:uuid`,
        `POST ${CONNECTORS}`,
        `GET ${CONNECTORS}`,
        `POST ${TRUNKS}`,
      ]),
    );
    expect(results.filter((result) => result.member && !result.skipped).map((result) => result.member)).toContain('agent_uuid');
    expect(results.filter((result) => result.skipped)).toEqual([]);
    expect(results.filter((result) => result.problem)).toEqual([]);
  }, 60_000);

  it('the OpenAPI document describes both resources, with the password write-only', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([CONNECTORS, `${CONNECTORS}/{uuid}`, TRUNKS, `${TRUNKS}/{uuid}`]));
    const text = JSON.stringify(doc.components.schemas.SipTrunkConnection);
    expect(text).toContain('has_password');
    expect(text).not.toContain('"password"');
    expect(JSON.stringify(doc.components.schemas.PbxExtensionConnector)).not.toContain('"password"');
  });

  it('the migration creates exactly what the entities describe, after the agents plugin’s, once', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.filter((name) => name.startsWith('telephony/'))).toEqual(['telephony/0001-telephony']);
    expect(executed.findLastIndex((name) => name.startsWith('agents/'))).toBeLessThan(executed.indexOf('telephony/0001-telephony'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('both tables are under row-level security with the tenant policy', async () => {
    const rows: Json[] = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(
        `select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced, exists (select 1 from pg_policies p where p.tablename = c.relname and p.policyname = 'tenant_isolation') as policy ` +
          `from pg_class c where c.relname in ('pbx_extension_connectors', 'sip_trunk_connections') order by c.relname`,
      );
    expect(rows).toEqual([
      { table: 'pbx_extension_connectors', enabled: true, forced: true, policy: true },
      { table: 'sip_trunk_connections', enabled: true, forced: true, policy: true },
    ]);
  });
});
