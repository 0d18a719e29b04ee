import crypto from 'node:crypto';
import { newUuid } from '../../../core';
import type { TestKernel, TestTenant, ResourceFixtures } from '../../../core/testing';

/**
 * A memory of a new contact of the owner, written straight into the database: memories
 * come only from the model summarizing a closed session, which the sweep's kernel has
 * not. The contact and the agent are made through the API.
 */
async function memory(owner: TestTenant, kit: TestKernel): Promise<Record<string, string>> {
  const email = `memory-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const contact: string = (await owner.api.post('/api/v1/contacts').send({ name: 'Sweep', email }).expect(201)).body.data.uuid;
  const agent: string = (await owner.api.post('/api/v1/agents').send({ name: 'Sweep' }).expect(201)).body.data.agent_uuid;
  const uuid = newUuid();
  await kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into contact_memories (uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, session_uuid, conversation_uuid, summary, fields, expires_at) ` +
        `values (?, ?, now(), now(), ?, ?, ?, ?, 'Prefers mornings.', '{}', now() + interval '1 day')`,
      [uuid, owner.tenant.uuid, agent, contact, newUuid(), newUuid()],
    );
  return { 'contacts.contact': contact, 'agents.agent': agent, 'memorize.memory': uuid };
}

export const fixtures: ResourceFixtures = { 'memorize.memory': memory };
