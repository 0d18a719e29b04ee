import type { ResourceFixtures } from '../../../core/testing';

/**
 * The cross-tenant sweep's fixture for an override settings' `overrideKind`: an agent
 * with an override (what `PUT /agents/{uuid}/<segment>` needs), made through the API.
 */
export function agentOverrideFixtures(definition: { segment: string; overrideKind: string }): ResourceFixtures {
  return {
    [definition.overrideKind]: async (owner) => {
      const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
      const uuid: string = agent.body.data.agent_uuid;
      await owner.api.post(`/api/v1/agents/${uuid}/${definition.segment}/assign`).expect(200);
      return { 'agents.agent': uuid, [definition.overrideKind]: uuid };
    },
  };
}
