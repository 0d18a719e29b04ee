import path from 'node:path';
import request from 'supertest';
import { startTestKernel, waitFor, type ApiClient, type TestKernel } from '../../../core/testing';
import { RUNTIME_PLUGINS, activeAgent } from '../runtime/runtime-test-kit';
import { FAKE_PROVIDER, fakeDriverPlugin, sign, startFakeVendor, type FakeVendor } from './fake-provider';

const CHANNELS = path.resolve(__dirname, '../../../plugins/channels');
const KEY = 'fake-api-key';
const SECRET = 'fake-signing-secret';

let vendor: FakeVendor;
let kit: TestKernel;

beforeAll(async () => {
  vendor = await startFakeVendor(KEY);
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, CHANNELS, fakeDriverPlugin(vendor.url)] });
});
afterAll(async () => {
  await kit?.stop();
  await vendor?.close();
});

const create = (api: ApiClient, body: Record<string, unknown>) => api.post('/api/v1/channel-connections').send(body);
const valid = { provider: FAKE_PROVIDER, label: 'Fake line', credentials: { api_key: KEY, signing_secret: SECRET } };

function signedHook(channelUuid: string, body: unknown) {
  const text = JSON.stringify(body);
  return request(kit.url).post(`/hooks/channels/${channelUuid}`).set('content-type', 'application/json').set('x-fake-signature', sign(SECRET, text)).send(text);
}

describe('channel connections', () => {
  it('creates, lists, reads and deletes a connection, never showing its credentials', async () => {
    const created = await create(kit.api, { ...valid, config: { region: 'eu' } }).expect(201);
    const connection = created.body.data;
    expect(connection).toEqual({
      uuid: expect.any(String),
      provider: FAKE_PROVIDER,
      label: 'Fake line',
      config: { region: 'eu' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // The driver's test asked the provider with the key.
    expect(vendor.requests.some((r) => r.path === '/me' && r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const read = await kit.api.get(`/api/v1/channel-connections/${connection.uuid}`).expect(200);
    expect(read.body.data).toEqual(connection);
    const second = (await create(kit.api, { ...valid, label: 'Second' }).expect(201)).body.data;
    const page = await kit.api.get('/api/v1/channel-connections?per_page=1').expect(200);
    expect(page.body.data.items.map((c: any) => c.uuid)).toEqual([second.uuid]);
    expect(page.body.data.pagination).toMatchObject({ total: 2, per_page: 1 });
    for (const body of [created.body, read.body, page.body]) {
      expect(JSON.stringify(body)).not.toContain(KEY);
      expect(JSON.stringify(body)).not.toContain(SECRET);
    }
    // Sealed at rest, too.
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select credentials from channel_connections where uuid = ?', [connection.uuid]);
    expect(row.credentials).not.toContain(SECRET);

    await kit.api.delete(`/api/v1/channel-connections/${connection.uuid}`).expect(200);
    await kit.api.get(`/api/v1/channel-connections/${connection.uuid}`).expect(404);
  });

  it('refuses an unknown provider, credentials off the driver’s schema, and credentials the provider refuses, each at its path', async () => {
    const unknown = await create(kit.api, { ...valid, provider: 'pigeon' }).expect(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['provider']);
    const shape = await create(kit.api, { ...valid, credentials: { signing_secret: 'short' } }).expect(422);
    expect(Object.keys(shape.body.errors).sort()).toEqual(['credentials.api_key', 'credentials.signing_secret']);
    const refused = await create(kit.api, { ...valid, credentials: { api_key: 'wrong-key', signing_secret: SECRET } }).expect(422);
    expect(refused.body.errors).toEqual({ credentials: ['The fake provider refused the API key'] });
    const listed = await kit.api.get('/api/v1/channel-connections').expect(200);
    expect(listed.body.data.items.filter((c: any) => c.label === 'Fake line' && c.provider === 'pigeon')).toHaveLength(0);
  });

  it('refuses to delete a connection an agent channel uses, naming the channel', async () => {
    const connection = (await create(kit.api, valid).expect(201)).body.data.uuid;
    const agent = await activeAgent(kit.api);
    const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'sms', name: 'Front desk SMS', config: { connection_uuid: connection } });
    const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'sms').uuid as string;
    const refused = await kit.api.delete(`/api/v1/channel-connections/${connection}`).expect(409);
    expect(refused.body.message).toContain(channel);
    expect(refused.body.message).toContain('Front desk SMS');
    await kit.api.delete(`/api/v1/agents/${agent}/channels/${channel}`).expect((res) => expect([200, 204]).toContain(res.status));
    await kit.api.delete(`/api/v1/channel-connections/${connection}`).expect(200);
  });

  it('keeps a connection to its tenant: another tenant cannot read, delete or route messages through it', async () => {
    const connection = (await create(kit.api, valid).expect(201)).body.data.uuid;
    const other = await kit.createTenant();
    await other.api.get(`/api/v1/channel-connections/${connection}`).expect(404);
    await other.api.delete(`/api/v1/channel-connections/${connection}`).expect(404);
    expect((await other.api.get('/api/v1/channel-connections').expect(200)).body.data.items).toEqual([]);

    // The other tenant's agent channel cannot name this tenant's connection, on create or on change.
    const agent = await activeAgent(other.api);
    const borrowed = await other.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'sms', name: 'Borrowed', config: { connection_uuid: connection } }).expect(422);
    expect(borrowed.body.errors['config.connection_uuid']).toEqual(['is not a channel connection of this tenant (POST /api/v1/channel-connections)']);
    const added = await other.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'sms', name: 'Own', config: {} }).expect(200);
    const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'sms').uuid as string;
    await other.api.patch(`/api/v1/agents/${agent}/channels/${channel}`).send({ config: { connection_uuid: connection } }).expect(422);
    await other.api.patch(`/api/v1/agents/${agent}/channels/${channel}`).send({ config: { connection_uuid: 'not-a-uuid' } }).expect(422);
    // A channel without a connection takes no messages.
    await signedHook(channel, { messages: [{ id: 'x-1', from: '+34600000009', text: 'Hi' }] }).expect(404);
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from channel_inbound_messages where channel_uuid = ?', [channel]);
    expect(row.n).toBe(0);
  });
});
