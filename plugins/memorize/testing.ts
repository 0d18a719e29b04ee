import type { ResourceFixtures } from '../../core/testing/cross-tenant-sweep';

/** How the cross-tenant sweep makes the memorize plugin's resources. */
export const fixtures: ResourceFixtures = {
  /** An agent that has a memorize override (what `PUT /agents/{uuid}/memorize` needs). */
  'memorize.agent-override': async (owner) => {
    const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
    const uuid: string = agent.body.data.agent_uuid;
    await owner.api.post(`/api/v1/agents/${uuid}/memorize/assign`).expect(200);
    return { 'agents.agent': uuid, 'memorize.agent-override': uuid };
  },
};
