import crypto from 'node:crypto';
import { newUuid } from '../../../core';
import type { ResourceFixtures, TestKernel, TestTenant } from '../../../core/testing';

/**
 * A pending approval for a new contact of the owner, written straight into the
 * database: approvals come only from the model, which the sweep's kernel has not.
 * That needs the kit (its database), so the fixture takes it as a second argument.
 * The contact is made through `POST /api/v1/contacts`.
 */
async function pendingApproval(owner: TestTenant, kit: TestKernel): Promise<Record<string, string>> {
  const connection = kit.kernel.orm.em.fork().getConnection();
  const email = `sweep-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const contactUuid: string = (await owner.api.post('/api/v1/contacts').send({ name: 'Sweep', email }).expect(201)).body.data.uuid;
  const approvalUuid = newUuid();
  await connection.execute(
    `insert into contact_approvals (uuid, tenant_uuid, created_at, updated_at, contact_uuid, analyzer_id, field, current_value, proposed_value, reason, status)
     values (?, ?, now(), now(), ?, 'b_company', 'company', null, ?::jsonb, 'sweep', 'pending')`,
    [approvalUuid, owner.tenant.uuid, contactUuid, JSON.stringify('Sweep Inc')],
  );
  return { 'contacts.contact': contactUuid, 'contacts.approval': approvalUuid };
}

export const fixtures: ResourceFixtures = {
  /** A `p_` analyzer with a stage key no other tenant uses. */
  'contacts.analyzer': async (owner) => {
    const analyzerId = `p_sweep_${crypto.randomBytes(4).toString('hex')}`;
    await owner.api.post('/api/v1/contact-analyzers').send({ analyzer_id: analyzerId, instruction: 'Whether the sweep reached this stage.' }).expect(201);
    return { 'contacts.analyzer': analyzerId };
  },
  'contacts.approval': pendingApproval,
};
