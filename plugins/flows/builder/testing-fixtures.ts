import type { TestTenant, ResourceFixtures } from '../../../core/testing';

/**
 * A deployable flow: a webhook trigger (the `webhook` app's `catch_hook`, whose only
 * config is its read-only hook URL), so every flow route, deploy included, succeeds
 * for the owner.
 */
async function flowWithTrigger(owner: TestTenant): Promise<{ flow: string; step: string }> {
  const flow = (await owner.api.post('/api/v1/flow').send({ name: 'sweep' }).expect(201)).body.data.uuid;
  const step = (await owner.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook' }).expect(201)).body.data.uuid;
  return { flow, step };
}

export const fixtures: ResourceFixtures = {
  'flows.flow': async (owner) => ({ 'flows.flow': (await flowWithTrigger(owner)).flow }),
  'flows.step': async (owner) => {
    const { flow, step } = await flowWithTrigger(owner);
    return { 'flows.flow': flow, 'flows.step': step };
  },
};
