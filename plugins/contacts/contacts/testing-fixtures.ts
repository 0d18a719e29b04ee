import crypto from 'node:crypto';
import type { TestTenant, ResourceFixtures } from '../../../core/testing';

const suffix = () => crypto.randomBytes(4).toString('hex');

/** A contact of the owner (a unique email, so fixtures never collide), returned whole. */
export async function createSweepContact(owner: TestTenant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await owner.api
    .post('/api/v1/contacts')
    .send({ name: 'Sweep', email: `sweep-${suffix()}@example.com`, ...body })
    .expect(201);
  return res.body.data;
}

/**
 * Fields and settings are addressed by key, not uuid: each fixture makes a key no other
 * tenant has (the attacking tenant must not own one by chance, or its 404 would be a 200).
 */
export const fixtures: ResourceFixtures = {
  'contacts.contact': async (owner) => ({ 'contacts.contact': (await createSweepContact(owner)).uuid }),
  'contacts.field': async (owner) => {
    const key = `sweep_${suffix()}`;
    await owner.api.post('/api/v1/contact-fields').send({ key, name: 'Sweep', data_type: 'text' }).expect(201);
    return { 'contacts.field': key };
  },
  'contacts.setting': async (owner) => {
    const key = `sweep.s${suffix()}`;
    await owner.api.put(`/api/v1/contact-settings/${key}`).send({ value: { on: true } }).expect(200);
    return { 'contacts.setting': key };
  },
};
