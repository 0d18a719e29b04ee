import path from 'node:path';
import { newUuid } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { contactMemoryRef, type ContactMemoryReader } from '../../../plugins/memorize';

// runtime is loaded because it depends on the reader: the kernel makes a service when a plugin asks for it.
const PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime'].map((id) => path.resolve(__dirname, '../../../plugins', id));

let kit: TestKernel;
let memory: ContactMemoryReader;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS });
  memory = kit.kernel.container.resolve<ContactMemoryReader>(contactMemoryRef.id);
});
afterAll(async () => {
  await kit?.stop();
});

async function agentRemembering(api: TestTenant['api'], enabled: boolean): Promise<string> {
  const agent = (await api.post('/api/v1/agents').send({ name: 'Memo' }).expect(201)).body.data.agent_uuid;
  await api.post(`/api/v1/agents/${agent}/memorize/assign`).expect((res) => expect([200, 201]).toContain(res.status));
  await api.put(`/api/v1/agents/${agent}/memorize`).send({ enabled }).expect(200);
  return agent;
}

/** A memory made `ageHours` ago that expires `expiresInHours` from now, written straight into the table. */
async function remember(tenant: TestTenant, agent: string, contact: string, summary: string, ageHours: number, expiresInHours = 24): Promise<void> {
  await kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into contact_memories (uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, session_uuid, conversation_uuid, summary, fields, expires_at) ` +
        `values (?, ?, now() - ? * interval '1 hour', now(), ?, ?, ?, ?, ?, '{"k":"v"}', now() + ? * interval '1 hour')`,
      [newUuid(), tenant.tenant.uuid, ageHours, agent, contact, newUuid(), newUuid(), summary, expiresInHours],
    );
}

const recall = (tenant: TestTenant, agent: string, contact: string, options?: { limit?: number }) =>
  runInContext({ tenant: tenant.tenant }, () => memory.recall(agent, contact, options));

describe('contactMemory.recall', () => {
  it('returns the agent’s memories of the contact, newest first, without expired ones, at most 5 unless told', async () => {
    const agent = await agentRemembering(kit.api, true);
    const otherAgent = await agentRemembering(kit.api, true);
    const kim = newUuid();
    for (let age = 1; age <= 7; age++) await remember(kit, agent, kim, `age ${age}`, age);
    await remember(kit, agent, kim, 'expired', 0.5, -1);
    await remember(kit, otherAgent, kim, 'other agent', 0.1);
    await remember(kit, agent, newUuid(), 'other contact', 0.1);

    const items = await recall(kit, agent, kim);
    expect(items.map((item) => item.summary)).toEqual(['age 1', 'age 2', 'age 3', 'age 4', 'age 5']);
    expect(items[0]).toMatchObject({ agent_uuid: agent, fields: { k: 'v' } });
    expect(Date.parse(items[0].created_at)).toBeGreaterThan(Date.parse(items[1].created_at));
    expect((await recall(kit, agent, kim, { limit: 2 })).map((item) => item.summary)).toEqual(['age 1', 'age 2']);
    expect((await recall(kit, agent, kim, { limit: 50 })).map((item) => item.summary)).toHaveLength(7);
    expect((await recall(kit, otherAgent, kim)).map((item) => item.summary)).toEqual(['other agent']);
  });

  it('is empty when memorize is off for the agent, and in another tenant', async () => {
    const off = await agentRemembering(kit.api, false);
    const on = await agentRemembering(kit.api, true);
    const kim = newUuid();
    await remember(kit, off, kim, 'kept from before it was turned off', 1);
    await remember(kit, on, kim, 'mine', 1);
    expect(await recall(kit, off, kim)).toEqual([]);
    expect((await recall(kit, on, kim)).map((item) => item.summary)).toEqual(['mine']);

    const other = await kit.createTenant();
    expect(await recall(other, on, kim)).toEqual([]);
  });

  it('reads inside a tenant’s transaction as well as outside one (the tests above read with no transaction)', async () => {
    const agent = await agentRemembering(kit.api, true);
    const kim = newUuid();
    await remember(kit, agent, kim, 'in a transaction', 1);
    const inside = await runInContext({ tenant: kit.tenant }, () =>
      kit.kernel.orm.em.fork().transactional(() => memory.recall(agent, kim)),
    );
    expect(inside.map((item) => item.summary)).toEqual(['in a transaction']);
  });
});
