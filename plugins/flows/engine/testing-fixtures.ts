import type { ResourceFixtures } from '../../../core/testing';

export const fixtures: ResourceFixtures = {
  /** A deployed webhook flow called once: its execution (needs the `webhook` app, as the builder's fixtures do). */
  'flows.execution': async (owner) => {
    const flow = (await owner.api.post('/api/v1/flow').send({ name: 'sweep' }).expect(201)).body.data.uuid;
    const trigger = (await owner.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook' }).expect(201)).body.data;
    await owner.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
    const hook = new URL(trigger.config.hook_url).pathname;
    const execution = (await owner.api.post(hook).send({ sweep: true }).expect(202)).body.data.execution_uuid;
    return { 'flows.flow': flow, 'flows.execution': execution };
  },
};
