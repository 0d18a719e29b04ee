import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as contactFixtures } from '../../../plugins/contacts/testing';
import { AGENTS, CONVERSATIONS, createAgent } from './conversation-test-helpers';

// With the contacts plugin, which checks a conversation's contact_uuid (Switchboard issue 22, item 5).
const CONTACTS = path.resolve(__dirname, '../../../plugins/contacts');

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, CONTACTS] });
});
afterAll(() => kit?.stop());

const createContact = async (api: TestKernel['api']): Promise<string> =>
  (await api.post('/api/v1/contacts').send({ name: 'Ana', email: `ana-${randomUUID()}@example.com` }).expect(201)).body.data.uuid;

const conversationCount = async (): Promise<number> => {
  const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from conversations');
  return row.n;
};

describe('POST /api/v1/conversations with a contact_uuid', () => {
  it('opens the conversation for a contact of this tenant', async () => {
    const agent = await createAgent(kit.api);
    const contact = await createContact(kit.api);
    const res = await kit.api.post('/api/v1/conversations').send({ agent_uuid: agent, contact_uuid: contact, channel: 'chat' }).expect(201);
    expect(res.body.data.contact_uuid).toBe(contact);
  });

  it.each([
    ["another tenant's contact", async () => createContact((await kit.createTenant()).api)],
    ['a random uuid', async () => randomUUID()],
  ])('refuses %s: 422 at contact_uuid, and no conversation is written', async (_, contactOf) => {
    const agent = await createAgent(kit.api);
    const contact = await contactOf();
    const before = await conversationCount();
    const res = await kit.api.post('/api/v1/conversations').send({ agent_uuid: agent, contact_uuid: contact, channel: 'chat' }).expect(422);
    expect(res.body.errors).toEqual({ contact_uuid: ['is not a contact of this tenant'] });
    expect(await conversationCount()).toBe(before);
  });

  it('reports a foreign agent and a foreign contact together', async () => {
    const other = await kit.createTenant();
    const res = await kit.api
      .post('/api/v1/conversations')
      .send({ agent_uuid: await createAgent(other.api), contact_uuid: await createContact(other.api), channel: 'chat' })
      .expect(422);
    expect(res.body.errors).toEqual({ agent_uuid: ['is not an agent of this tenant'], contact_uuid: ['is not a contact of this tenant'] });
  });

  it('the cross-tenant sweep finds no member of the conversation routes that takes a foreign id', async () => {
    const results = await sweepCrossTenant(kit, { ...agentFixtures, ...contactFixtures }, { only: (route) => route.method === 'POST' && route.path === '/api/v1/conversations' });
    expect(results).toEqual([
      { route: 'POST /api/v1/conversations', member: 'agent_uuid' },
      { route: 'POST /api/v1/conversations', member: 'contact_uuid' },
    ]);
  });
});
