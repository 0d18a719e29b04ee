import { startTestKernel, type ApiClient, type TestKernel } from '../../../core/testing';
import { TELEPHONY_PLUGINS, agentWith, numberSource, rawRow, refused, type Json } from './telephony-test-kit';

const PATH = '/api/v1/channels/sip-trunk/connections';
const PASSWORD = 'trunk-credential-8842';
const MAX_TRUNKS = 4;

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: TELEPHONY_PLUGINS, config: { telephony: { maxSipTrunksPerTenant: MAX_TRUNKS } } });
});
afterAll(() => kit?.stop());

const freshNumber = numberSource(4155553000);
const minimal = { name: 'Carrier', gateway: 'sip.carrier.example' };
const create = (body: Json, api: ApiClient = kit.api) => api.post(PATH).send(body);
const countRows = async () => (await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from sip_trunk_connections'))[0].n as number;

/** The tenant of each test: MAX_TRUNKS is small, so tests do not share one. */
let api: ApiClient;
beforeEach(async () => {
  api = (await kit.createTenant()).api;
});

describe('SIP trunk connections: create, list, read, update, delete', () => {
  it('creates a trunk bound to an agent and its numbers, lists it in the contract’s envelope and reads it back', async () => {
    const [one, two] = [freshNumber(), freshNumber()];
    const agent = await agentWith(api, [one, two], 'Sales line');
    const created = await create(
      {
        name: 'Twilio trunk',
        agent_uuid: agent,
        phone_numbers: [one, two],
        gateway: 'acme.pstn.twilio.com',
        secondary_gateway: '192.0.2.20',
        transport: 'tls',
        auth: { username: 'acme-agent', password: PASSWORD },
        allowed_ips: ['54.172.60.0/30', '2001:db8::1'],
        codecs: ['opus', 'PCMU'],
        normalizer: { default_prefix: '+1', condition_length: 10 },
      },
      api,
    ).expect(201);
    const trunk = created.body.data;
    expect(Object.keys(created.body)).toEqual(['data']);
    expect(trunk).toEqual({
      uuid: expect.any(String),
      name: 'Twilio trunk',
      status: 'active',
      agent_uuid: agent,
      agent_name: 'Sales line',
      phone_number: one,
      phone_numbers: [one, two],
      gateway: 'acme.pstn.twilio.com',
      secondary_gateway: '192.0.2.20',
      port: 5061,
      transport: 'tls',
      auth: { username: 'acme-agent', has_password: true },
      allowed_ips: ['54.172.60.0/30', '2001:db8::1'],
      codecs: ['opus', 'PCMU'],
      normalizer: { default_prefix: '+1', condition_length: 10, condition_prefix: null },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await api.get(`${PATH}/${trunk.uuid}`).expect(200, { data: trunk });

    const second = (await create(minimal, api).expect(201)).body.data;
    const list = await api.get(PATH).expect(200);
    expect(list.body).toEqual({ success: true, message: expect.any(String), data: { items: [second, trunk], count: 2 } });
  });

  it('fills in the defaults: inactive without an agent, udp on 5060, PCMU and PCMA, no numbers, credentials or addresses', async () => {
    const trunk = (await create(minimal, api).expect(201)).body.data;
    expect(trunk).toMatchObject({
      status: 'inactive',
      agent_uuid: null,
      agent_name: null,
      phone_number: null,
      phone_numbers: [],
      secondary_gateway: null,
      port: 5060,
      transport: 'udp',
      auth: { username: null, has_password: false },
      allowed_ips: [],
      codecs: ['PCMU', 'PCMA'],
      normalizer: { default_prefix: null, condition_length: null, condition_prefix: null },
    });
  });

  it('phone_number is the main number: always phone_numbers[0], put first (or added) when sent', async () => {
    const [a, b, c] = [freshNumber(), freshNumber(), freshNumber()];
    const single = (await create({ ...minimal, phone_number: a }, api).expect(201)).body.data;
    expect(single).toMatchObject({ phone_number: a, phone_numbers: [a] });
    const url = `${PATH}/${single.uuid}`;
    expect((await api.patch(url).send({ phone_numbers: [b, a] }).expect(200)).body.data).toMatchObject({ phone_number: b, phone_numbers: [b, a] });
    expect((await api.patch(url).send({ phone_number: a }).expect(200)).body.data).toMatchObject({ phone_number: a, phone_numbers: [a, b] });
    expect((await api.patch(url).send({ phone_number: c }).expect(200)).body.data).toMatchObject({ phone_number: c, phone_numbers: [c, a, b] });
    expect((await api.patch(url).send({ phone_number: null }).expect(200)).body.data).toMatchObject({ phone_number: null, phone_numbers: [] });
  });

  it('PATCH changes only the members sent, auth and normalizer member by member; a client may send back what it read', async () => {
    const agent = await agentWith(api);
    const before = (await create({ ...minimal, agent_uuid: agent, auth: { username: 'u1', password: PASSWORD }, allowed_ips: '198.51.100.7' }, api).expect(201)).body.data;
    const url = `${PATH}/${before.uuid}`;
    const changed = (await api.patch(url).send({ name: 'Renamed', port: 5080, auth: { username: 'u2' }, normalizer: { default_prefix: '+44' } }).expect(200)).body.data;
    expect(changed).toEqual({
      ...before,
      name: 'Renamed',
      port: 5080,
      auth: { username: 'u2', has_password: true },
      normalizer: { default_prefix: '+44', condition_length: null, condition_prefix: null },
      updated_at: expect.any(String),
    });
    expect((await api.patch(url).send(changed).expect(200)).body.data).toEqual({ ...changed, updated_at: expect.any(String) });
    const released = (await api.patch(url).send({ agent_uuid: null }).expect(200)).body.data;
    expect(released).toMatchObject({ agent_uuid: null, agent_name: null, status: 'inactive' });
  });

  it('deletes a trunk', async () => {
    const trunk = (await create(minimal, api).expect(201)).body.data;
    await api.delete(`${PATH}/${trunk.uuid}`).expect(200, { success: true, message: 'SIP trunk connection deleted', data: { deleted: true } });
    await api.get(`${PATH}/${trunk.uuid}`).expect(404, { success: false, message: 'SIP trunk connection not found', data: [] });
    await api.patch(`${PATH}/${trunk.uuid}`).send({ name: 'x' }).expect(404);
    expect((await api.get(PATH).expect(200)).body.data).toEqual({ items: [], count: 0 });
  });

  it('bounds a tenant’s trunks (the list is not paged): one past the setting is a 409', async () => {
    for (let i = 0; i < MAX_TRUNKS; i++) await create({ ...minimal, name: `Trunk ${i}` }, api).expect(201);
    const refusedTrunk = await create(minimal, api).expect(409);
    expect(refusedTrunk.body.message).toContain(String(MAX_TRUNKS));
    expect((await api.get(PATH).expect(200)).body.data.count).toBe(MAX_TRUNKS);
  });
});

describe('SIP trunk connections: the password', () => {
  it('is never returned, is sealed in the row, is kept when not sent, and is removed with null', async () => {
    const created = await create({ ...minimal, auth: { username: 'acme', password: PASSWORD } }, api).expect(201);
    const uuid = created.body.data.uuid;
    const read = await api.get(`${PATH}/${uuid}`).expect(200);
    const list = await api.get(PATH).expect(200);
    const patched = await api.patch(`${PATH}/${uuid}`).send({ name: 'Renamed' }).expect(200);
    for (const body of [created.body, read.body, list.body, patched.body]) expect(JSON.stringify(body)).not.toContain(PASSWORD);
    expect(patched.body.data.auth).toEqual({ username: 'acme', has_password: true });

    const row = await rawRow(kit, 'sip_trunk_connections', uuid);
    expect(row.auth_password).toMatch(/^sb1:/);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);

    await refused(api.patch(`${PATH}/${uuid}`).send({ auth: { username: null } }), ['auth.username']);
    const removed = await api.patch(`${PATH}/${uuid}`).send({ auth: { password: null, username: null } }).expect(200);
    expect(removed.body.data.auth).toEqual({ username: null, has_password: false });
    expect((await rawRow(kit, 'sip_trunk_connections', uuid)).auth_password).toBeNull();
  });
});

describe('SIP trunk connections: validation (422 at the field path, nothing written)', () => {
  const cases: Array<[string, Json, string[]]> = [
    ['no name and no gateway', {}, ['name', 'gateway']],
    ['a gateway with a scheme', { ...minimal, gateway: 'sip:sip.carrier.example' }, ['gateway']],
    ['a gateway with a path', { ...minimal, gateway: 'sip.carrier.example/trunk' }, ['gateway']],
    ['a gateway with a port', { ...minimal, gateway: 'sip.carrier.example:5060' }, ['gateway']],
    ['a secondary gateway that is no host', { ...minimal, secondary_gateway: 'http://backup' }, ['secondary_gateway']],
    ['port 0', { ...minimal, port: 0 }, ['port']],
    ['port 65536', { ...minimal, port: 65536 }, ['port']],
    ['a transport that does not exist', { ...minimal, transport: 'ws' }, ['transport']],
    ['an address that is none, in an array', { ...minimal, allowed_ips: ['10.0.0.1', '10.0.0.0/99'] }, ['allowed_ips.1']],
    ['an address that is none, in a string', { ...minimal, allowed_ips: '10.0.0.1 carrier.example' }, ['allowed_ips']],
    ['a number that is not E.164', { ...minimal, phone_numbers: ['+14155550100', '0034600000000'] }, ['phone_numbers.1']],
    ['a number twice', { ...minimal, phone_numbers: ['+14155550100', '+14155550100'] }, ['phone_numbers']],
    ['a main number that is not E.164', { ...minimal, phone_number: '555-0100' }, ['phone_number']],
    ['a codec that does not exist', { ...minimal, codecs: ['PCMU', 'mp3'] }, ['codecs.1']],
    ['no codec', { ...minimal, codecs: [] }, ['codecs']],
    ['a password without a username', { ...minimal, auth: { password: PASSWORD } }, ['auth.username']],
    ['active without an agent', { ...minimal, status: 'active' }, ['status']],
    ['a normalizer condition without a prefix to add', { ...minimal, normalizer: { condition_prefix: '415' } }, ['normalizer.default_prefix']],
    ['a default prefix that is no digits', { ...minimal, normalizer: { default_prefix: 'plus-one' } }, ['normalizer.default_prefix']],
    ['an unknown member', { ...minimal, termination_uri: 'x' }, ['termination_uri']],
    ['an agent that does not exist', { ...minimal, agent_uuid: '0190a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }, ['agent_uuid']],
  ];

  it.each(cases)('refuses %s', async (_, body, paths) => {
    const before = await countRows();
    await refused(create(body, api), paths);
    expect(await countRows()).toBe(before);
  });

  it('refuses numbers the agent does not hold, when it holds some, each at its place', async () => {
    const held = freshNumber();
    const agent = await agentWith(api, [held]);
    const errors = await refused(create({ ...minimal, agent_uuid: agent, phone_numbers: [held, '+14155559998', '+14155559999'] }, api), ['phone_numbers.1', 'phone_numbers.2']);
    expect(errors['phone_numbers.1'][0]).toContain(held);
    await refused(create({ ...minimal, agent_uuid: agent, phone_number: '+14155559999' }, api), ['phone_number']);
    const trunk = (await create({ ...minimal, agent_uuid: agent, phone_numbers: [held] }, api).expect(201)).body.data;
    await refused(api.patch(`${PATH}/${trunk.uuid}`).send({ phone_number: '+14155559999' }), ['phone_number']);
    // Binding another agent checks the numbers the trunk already has.
    const stranger = await agentWith(api, [freshNumber()]);
    await refused(api.patch(`${PATH}/${trunk.uuid}`).send({ agent_uuid: stranger }), ['phone_numbers.0']);
    const bare = await agentWith(api);
    await api.patch(`${PATH}/${trunk.uuid}`).send({ agent_uuid: bare }).expect(200);
  });
});

describe('SIP trunk connections: tenants', () => {
  it('another tenant cannot read, change, delete or list a trunk, nor bind one to this tenant’s agent', async () => {
    const agent = await agentWith(api);
    const trunk = (await create({ ...minimal, agent_uuid: agent }, api).expect(201)).body.data;
    const url = `${PATH}/${trunk.uuid}`;
    const other = (await kit.createTenant()).api;
    await other.get(url).expect(404);
    await other.patch(url).send({ name: 'Taken' }).expect(404);
    await other.delete(url).expect(404);
    expect((await other.get(PATH).expect(200)).body.data).toEqual({ items: [], count: 0 });
    await refused(create({ ...minimal, agent_uuid: agent }, other), ['agent_uuid']);
    expect((await api.get(url).expect(200)).body.data).toEqual(trunk);
  });
});
