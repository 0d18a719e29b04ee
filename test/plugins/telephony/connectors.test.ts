import { startTestKernel, type ApiClient, type TestKernel } from '../../../core/testing';
import { TELEPHONY_PLUGINS, agentWith, numberSource, rawRow, refused, type Json } from './telephony-test-kit';

const PATH = '/api/v1/pbx_extension_connectors';
const SIP_SERVER = 'sip.switchboard.test';
const PASSWORD = 'extension-secret-4711';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: TELEPHONY_PLUGINS, config: { telephony: { sipConnectorServer: SIP_SERVER } } });
});
afterAll(() => kit?.stop());

const freshNumber = numberSource(4155552000);
const minimal = { name: 'Front desk', pbx: { registrar_server: 'pbx.example.com', username_extension: '201' } };
const create = (body: Json, api: ApiClient = kit.api) => api.post(PATH).send(body);
const countRows = async () => (await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from pbx_extension_connectors'))[0].n as number;

describe('PBX extension connectors: create, read, update, delete', () => {
  it('creates a connector bound to an agent and one of its numbers, and reads it back as created', async () => {
    const number = freshNumber();
    const agent = await agentWith(kit.api, [number, freshNumber()], 'Front desk agent');
    const body = {
      name: 'Front desk',
      agent_uuid: agent,
      phone_number: number,
      connection_type: 'tcp',
      setup_mode: 'inbound',
      pbx: { registrar_server: '192.0.2.10', port: 5070, username_extension: '201' },
      inbound: { allowed_ip: ['203.0.113.10', '198.51.100.0/24', '2001:db8::/32'] },
      auth: { has_separate_credentials: true, username: 'agent-201', password: PASSWORD },
      normalizer: { default_prefix: '+1', condition_length: 10, condition_prefix: null },
    };
    const created = await create(body).expect(201);
    const connector = created.body.data;
    expect(connector).toEqual({
      pbx_extension_connector_uuid: expect.any(String),
      name: 'Front desk',
      status: 'active',
      phone_number: number,
      agent_uuid: agent,
      agent_name: 'Front desk agent',
      sip_connector_server: SIP_SERVER,
      connection_type: 'tcp',
      setup_mode: 'inbound',
      pbx: { registrar_server: '192.0.2.10', port: 5070, username_extension: '201' },
      inbound: { allowed_ip: ['203.0.113.10', '198.51.100.0/24', '2001:db8::/32'] },
      auth: { has_separate_credentials: true, username: 'agent-201', has_password: true },
      normalizer: { default_prefix: '+1', condition_length: 10, condition_prefix: null },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await kit.api.get(`${PATH}/${connector.pbx_extension_connector_uuid}`).expect(200, { data: connector });
  });

  it('fills in the defaults: inactive without an agent, udp, both, port 5060 (5061 with tls), no addresses, no credentials, no normalizer', async () => {
    const plain = (await create(minimal).expect(201)).body.data;
    expect(plain).toMatchObject({
      status: 'inactive',
      phone_number: null,
      agent_uuid: null,
      agent_name: null,
      connection_type: 'udp',
      setup_mode: 'both',
      pbx: { registrar_server: 'pbx.example.com', port: 5060, username_extension: '201' },
      inbound: { allowed_ip: [] },
      auth: { has_separate_credentials: false, username: null, has_password: false },
      normalizer: { default_prefix: null, condition_length: null, condition_prefix: null },
    });
    const tls = (await create({ ...minimal, connection_type: 'tls' }).expect(201)).body.data;
    expect(tls.pbx.port).toBe(5061);
  });

  it('takes inbound.allowed_ip as one string of entries too, and answers it as an array', async () => {
    const connector = (await create({ ...minimal, inbound: { allowed_ip: '203.0.113.10, 198.51.100.0/24  2001:db8::1' } }).expect(201)).body.data;
    expect(connector.inbound.allowed_ip).toEqual(['203.0.113.10', '198.51.100.0/24', '2001:db8::1']);
    const emptied = await kit.api.patch(`${PATH}/${connector.pbx_extension_connector_uuid}`).send({ inbound: { allowed_ip: '' } }).expect(200);
    expect(emptied.body.data.inbound.allowed_ip).toEqual([]);
  });

  it('PATCH changes only the members sent, nested groups member by member, and a client may send back what it read', async () => {
    const agent = await agentWith(kit.api);
    const before = (await create({ ...minimal, agent_uuid: agent, auth: { password: PASSWORD }, normalizer: { default_prefix: '+34' } }).expect(201)).body.data;
    const changed = (await kit.api.patch(`${PATH}/${before.pbx_extension_connector_uuid}`).send({ name: 'Reception', pbx: { port: 5080 }, normalizer: { condition_length: 9 } }).expect(200)).body.data;
    expect(changed).toEqual({
      ...before,
      name: 'Reception',
      pbx: { ...before.pbx, port: 5080 },
      normalizer: { default_prefix: '+34', condition_length: 9, condition_prefix: null },
      updated_at: expect.any(String),
    });
    // Read-only members (uuid, agent_name, sip_connector_server, has_password, times) sent back are ignored.
    const echoed = (await kit.api.patch(`${PATH}/${before.pbx_extension_connector_uuid}`).send(changed).expect(200)).body.data;
    expect(echoed).toEqual({ ...changed, updated_at: expect.any(String) });
    expect(echoed.auth.has_password).toBe(true);
  });

  it('letting go of the agent makes the connector inactive; active needs an agent', async () => {
    const agent = await agentWith(kit.api);
    const connector = (await create({ ...minimal, agent_uuid: agent }).expect(201)).body.data;
    expect(connector.status).toBe('active');
    const released = (await kit.api.patch(`${PATH}/${connector.pbx_extension_connector_uuid}`).send({ agent_uuid: null }).expect(200)).body.data;
    expect(released).toMatchObject({ agent_uuid: null, agent_name: null, status: 'inactive' });
    await refused(kit.api.patch(`${PATH}/${connector.pbx_extension_connector_uuid}`).send({ status: 'active' }), ['status']);
    const rebound = (await kit.api.patch(`${PATH}/${connector.pbx_extension_connector_uuid}`).send({ agent_uuid: agent, status: 'active' }).expect(200)).body.data;
    expect(rebound).toMatchObject({ agent_uuid: agent, status: 'active' });
    const paused = (await kit.api.patch(`${PATH}/${connector.pbx_extension_connector_uuid}`).send({ status: 'inactive' }).expect(200)).body.data;
    expect(paused).toMatchObject({ agent_uuid: agent, status: 'inactive' });
  });

  it('deletes a connector', async () => {
    const connector = (await create(minimal).expect(201)).body.data;
    await kit.api.delete(`${PATH}/${connector.pbx_extension_connector_uuid}`).expect(200, { success: true, message: 'PBX extension connector deleted', data: { deleted: true } });
    await kit.api.get(`${PATH}/${connector.pbx_extension_connector_uuid}`).expect(404, { success: false, message: 'PBX extension connector not found', data: [] });
    await kit.api.delete(`${PATH}/${connector.pbx_extension_connector_uuid}`).expect(404);
  });
});

describe('PBX extension connectors: the password', () => {
  it('is never returned, is sealed in the row, is kept when not sent, and is removed with null', async () => {
    const created = await create({ ...minimal, auth: { password: PASSWORD } }).expect(201);
    const uuid = created.body.data.pbx_extension_connector_uuid;
    expect(created.body.data.auth).toEqual({ has_separate_credentials: false, username: null, has_password: true });
    const read = await kit.api.get(`${PATH}/${uuid}`).expect(200);
    const list = await kit.api.get(PATH).expect(200);
    const patched = await kit.api.patch(`${PATH}/${uuid}`).send({ name: 'Renamed' }).expect(200);
    for (const body of [created.body, read.body, list.body, patched.body]) expect(JSON.stringify(body)).not.toContain(PASSWORD);
    expect(patched.body.data.auth.has_password).toBe(true);

    const row = await rawRow(kit, 'pbx_extension_connectors', uuid);
    expect(row.auth_password).toMatch(/^sb1:/);
    expect(row.auth_password).not.toContain(PASSWORD);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);

    const rotated = await kit.api.patch(`${PATH}/${uuid}`).send({ auth: { password: 'another-secret' } }).expect(200);
    expect(rotated.body.data.auth.has_password).toBe(true);
    expect((await rawRow(kit, 'pbx_extension_connectors', uuid)).auth_password).not.toBe(row.auth_password);

    const removed = await kit.api.patch(`${PATH}/${uuid}`).send({ auth: { password: null } }).expect(200);
    expect(removed.body.data.auth.has_password).toBe(false);
    expect((await rawRow(kit, 'pbx_extension_connectors', uuid)).auth_password).toBeNull();
  });
});

describe('PBX extension connectors: validation (422 at the field path, nothing written)', () => {
  const cases: Array<[string, Json, string[]]> = [
    ['no name and no pbx', {}, ['name', 'pbx']],
    ['no registrar nor extension', { name: 'x', pbx: {} }, ['pbx.registrar_server', 'pbx.username_extension']],
    ['a registrar with a scheme', { ...minimal, pbx: { ...minimal.pbx, registrar_server: 'sip:pbx.example.com' } }, ['pbx.registrar_server']],
    ['a registrar with a URL scheme', { ...minimal, pbx: { ...minimal.pbx, registrar_server: 'https://pbx.example.com' } }, ['pbx.registrar_server']],
    ['a registrar with a path', { ...minimal, pbx: { ...minimal.pbx, registrar_server: 'pbx.example.com/sip' } }, ['pbx.registrar_server']],
    ['a registrar with a port', { ...minimal, pbx: { ...minimal.pbx, registrar_server: 'pbx.example.com:5060' } }, ['pbx.registrar_server']],
    ['a registrar that is no host', { ...minimal, pbx: { ...minimal.pbx, registrar_server: 'pbx_example!.com' } }, ['pbx.registrar_server']],
    ['a mistyped IPv4 registrar', { ...minimal, pbx: { ...minimal.pbx, registrar_server: '10.0.0.300' } }, ['pbx.registrar_server']],
    ['port 0', { ...minimal, pbx: { ...minimal.pbx, port: 0 } }, ['pbx.port']],
    ['port 65536', { ...minimal, pbx: { ...minimal.pbx, port: 65536 } }, ['pbx.port']],
    ['a port that is not an integer', { ...minimal, pbx: { ...minimal.pbx, port: '5060' } }, ['pbx.port']],
    ['an extension with spaces', { ...minimal, pbx: { ...minimal.pbx, username_extension: '2 01' } }, ['pbx.username_extension']],
    ['an address that is none, in an array', { ...minimal, inbound: { allowed_ip: ['203.0.113.10', 'example.com'] } }, ['inbound.allowed_ip.1']],
    ['a CIDR block with a prefix too long', { ...minimal, inbound: { allowed_ip: ['203.0.113.0/33'] } }, ['inbound.allowed_ip.0']],
    ['an address that is none, in a string', { ...minimal, inbound: { allowed_ip: '203.0.113.10, 999.1.1.1' } }, ['inbound.allowed_ip']],
    ['a phone number that is not E.164', { ...minimal, phone_number: '4155550100' }, ['phone_number']],
    ['a connection type that does not exist', { ...minimal, connection_type: 'sctp' }, ['connection_type']],
    ['a setup mode that does not exist', { ...minimal, setup_mode: 'sideways' }, ['setup_mode']],
    ['a status that does not exist', { ...minimal, status: 'paused' }, ['status']],
    ['active without an agent', { ...minimal, status: 'active' }, ['status']],
    ['a default prefix that is no digits', { ...minimal, normalizer: { default_prefix: '+1a' } }, ['normalizer.default_prefix']],
    ['a condition length of 0', { ...minimal, normalizer: { default_prefix: '+1', condition_length: 0 } }, ['normalizer.condition_length']],
    ['a condition length past E.164', { ...minimal, normalizer: { default_prefix: '+1', condition_length: 16 } }, ['normalizer.condition_length']],
    ['a condition prefix that is no digits', { ...minimal, normalizer: { default_prefix: '+1', condition_prefix: '4x' } }, ['normalizer.condition_prefix']],
    ['a condition without a prefix to add', { ...minimal, normalizer: { condition_length: 10 } }, ['normalizer.default_prefix']],
    ['separate credentials without a username', { ...minimal, auth: { has_separate_credentials: true } }, ['auth.username']],
    ['a username without separate credentials', { ...minimal, auth: { username: 'agent-201' } }, ['auth.username']],
    ['an empty password', { ...minimal, auth: { password: '' } }, ['auth.password']],
    ['an unknown member', { ...minimal, trunk: true }, ['trunk']],
    ['an unknown member of a group', { ...minimal, pbx: { ...minimal.pbx, realm: 'x' } }, ['pbx.realm']],
    ['an agent_uuid that is not a uuid', { ...minimal, agent_uuid: 'agent-1' }, ['agent_uuid']],
    ['an agent that does not exist', { ...minimal, agent_uuid: '0190a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }, ['agent_uuid']],
  ];

  it.each(cases)('refuses %s', async (_, body, paths) => {
    const before = await countRows();
    await refused(create(body), paths);
    expect(await countRows()).toBe(before);
  });

  it('refuses a phone number the agent does not hold, when it holds some; any number for an agent without numbers', async () => {
    const held = freshNumber();
    const agent = await agentWith(kit.api, [held]);
    const errors = await refused(create({ ...minimal, agent_uuid: agent, phone_number: '+14155559999' }), ['phone_number']);
    expect(errors.phone_number[0]).toContain(held);
    await create({ ...minimal, agent_uuid: agent, phone_number: held }).expect(201);
    const bare = await agentWith(kit.api);
    await create({ ...minimal, agent_uuid: bare, phone_number: '+14155559999' }).expect(201);
  });

  it('checks a PATCH the same way and leaves the connector untouched', async () => {
    const held = freshNumber();
    const agent = await agentWith(kit.api, [held]);
    const connector = (await create({ ...minimal, agent_uuid: agent, phone_number: held }).expect(201)).body.data;
    const url = `${PATH}/${connector.pbx_extension_connector_uuid}`;
    await refused(kit.api.patch(url).send({ phone_number: '+14155559999' }), ['phone_number']);
    await refused(kit.api.patch(url).send({ pbx: { registrar_server: 'sip://pbx' } }), ['pbx.registrar_server']);
    await refused(kit.api.patch(url).send({ pbx: { port: 99999 } }), ['pbx.port']);
    await refused(kit.api.patch(url).send({ auth: { has_separate_credentials: true } }), ['auth.username']);
    await refused(kit.api.patch(url).send({ agent_uuid: '0190a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }), ['agent_uuid']);
    await refused(kit.api.patch(url).send({ normalizer: { default_prefix: null, condition_prefix: '1' } }), ['normalizer.default_prefix']);
    // Another agent without numbers takes the held number along.
    const other = await agentWith(kit.api);
    await kit.api.patch(url).send({ agent_uuid: other }).expect(200);
    await kit.api.patch(url).send({ agent_uuid: agent }).expect(200);
    expect((await kit.api.get(url).expect(200)).body.data).toEqual({ ...connector, updated_at: expect.any(String) });
  });
});

describe('PBX extension connectors: the list', () => {
  it('pages newest first in the contract’s envelope, 25 a page by default (as every list), at most 100', async () => {
    const tenant = await kit.createTenant();
    const made: string[] = [];
    for (let i = 0; i < 26; i++) made.push((await create({ ...minimal, name: `Extension ${i}` }, tenant.api).expect(201)).body.data.pbx_extension_connector_uuid);
    const first = await tenant.api.get(PATH).expect(200);
    expect(Object.keys(first.body)).toEqual(['success', 'data']);
    expect(first.body.success).toBe(true);
    expect(first.body.data.items.map((c: Json) => c.pbx_extension_connector_uuid)).toEqual(made.slice(1).reverse());
    expect(first.body.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 26, last_page: 2, from: 1, to: 25, has_more: true });
    const second = await tenant.api.get(`${PATH}?page=2`).expect(200);
    expect(second.body.data.items.map((c: Json) => c.pbx_extension_connector_uuid)).toEqual([made[0]]);
    expect(second.body.data.pagination).toEqual({ current_page: 2, per_page: 25, total: 26, last_page: 2, from: 26, to: 26, has_more: false });
    const small = await tenant.api.get(`${PATH}?per_page=5&page=3`).expect(200);
    expect(small.body.data.pagination).toEqual({ current_page: 3, per_page: 5, total: 26, last_page: 6, from: 11, to: 15, has_more: true });
    const past = await tenant.api.get(`${PATH}?page=9`).expect(200);
    expect(past.body.data).toEqual({ items: [], pagination: { current_page: 9, per_page: 25, total: 26, last_page: 2, from: null, to: null, has_more: false } });
    expect((await tenant.api.get(`${PATH}?per_page=100`).expect(200)).body.data.items).toHaveLength(26);
    await refused(tenant.api.get(`${PATH}?per_page=101`), ['per_page']);
    await refused(tenant.api.get(`${PATH}?per_page=0`), ['per_page']);
  });

  it('filters by agent, phone number (with or without its +) and status, together', async () => {
    const tenant = await kit.createTenant();
    const number = freshNumber();
    const agent = await agentWith(tenant.api, [number], 'Filtered');
    const other = await agentWith(tenant.api, [], 'Other');
    const a = (await create({ ...minimal, name: 'a', agent_uuid: agent, phone_number: number }, tenant.api).expect(201)).body.data;
    const b = (await create({ ...minimal, name: 'b', agent_uuid: agent, status: 'inactive' }, tenant.api).expect(201)).body.data;
    const c = (await create({ ...minimal, name: 'c', agent_uuid: other, phone_number: number }, tenant.api).expect(201)).body.data;
    const d = (await create({ ...minimal, name: 'd' }, tenant.api).expect(201)).body.data;
    const names = async (query: string) => (await tenant.api.get(`${PATH}?${query}`).expect(200)).body.data.items.map((item: Json) => item.name);

    expect(await names(`agent_uuid=${agent}`)).toEqual(['b', 'a']);
    expect(await names(`phone_number=${encodeURIComponent(number)}`)).toEqual(['c', 'a']);
    expect(await names(`phone_number=${number.slice(1)}`)).toEqual(['c', 'a']);
    expect(await names('status=inactive')).toEqual(['d', 'b']);
    expect(await names('status=active')).toEqual(['c', 'a']);
    expect(await names(`agent_uuid=${agent}&status=active&phone_number=${encodeURIComponent(number)}`)).toEqual(['a']);
    expect(await names(`agent_uuid=${agent}&phone_number=${encodeURIComponent(freshNumber())}`)).toEqual([]);
    const listed = (await tenant.api.get(`${PATH}?agent_uuid=${agent}`).expect(200)).body.data;
    expect(listed.items.map((item: Json) => item.agent_name)).toEqual(['Filtered', 'Filtered']);
    expect(listed.pagination.total).toBe(2);
    expect([a, b, c, d].every((item) => item.pbx_extension_connector_uuid)).toBe(true);

    await refused(tenant.api.get(`${PATH}?status=paused`), ['status']);
    await refused(tenant.api.get(`${PATH}?agent_uuid=nope`), ['agent_uuid']);
    await refused(tenant.api.get(`${PATH}?phone_number=call-me`), ['phone_number']);
    await refused(tenant.api.get(`${PATH}?colour=red`), ['colour']);
  });
});

describe('PBX extension connectors: tenants', () => {
  it('another tenant cannot read, change, delete or list a connector, nor bind its own to this tenant’s agent', async () => {
    const agent = await agentWith(kit.api);
    const connector = (await create({ ...minimal, agent_uuid: agent, auth: { password: PASSWORD } }).expect(201)).body.data;
    const url = `${PATH}/${connector.pbx_extension_connector_uuid}`;
    const other = await kit.createTenant();
    await other.api.get(url).expect(404);
    await other.api.patch(url).send({ name: 'Taken' }).expect(404);
    await other.api.delete(url).expect(404);
    expect((await other.api.get(PATH).expect(200)).body.data.items).toEqual([]);
    expect((await other.api.get(`${PATH}?agent_uuid=${agent}`).expect(200)).body.data.items).toEqual([]);
    await refused(create({ ...minimal, agent_uuid: agent }, other.api), ['agent_uuid']);
    const own = (await create(minimal, other.api).expect(201)).body.data;
    await refused(other.api.patch(`${PATH}/${own.pbx_extension_connector_uuid}`).send({ agent_uuid: agent }), ['agent_uuid']);
    await kit.api.get(`${PATH}/${own.pbx_extension_connector_uuid}`).expect(404);
    expect((await kit.api.get(url).expect(200)).body.data).toEqual(connector);
  });
});
