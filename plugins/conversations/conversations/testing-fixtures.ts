import type { ResourceFixtures, TestTenant } from '../../../core/testing';

/** An agent and an open chat conversation of it, in the owner's tenant. */
async function openConversation(owner: TestTenant): Promise<Record<string, string>> {
  const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
  const agentUuid: string = agent.body.data.agent_uuid;
  const conversation = await owner.api.post('/api/v1/conversations').send({ agent_uuid: agentUuid, channel: 'chat' }).expect(201);
  return { 'agents.agent': agentUuid, 'conversations.conversation': conversation.body.data.uuid };
}

export const fixtures: ResourceFixtures = {
  'conversations.conversation': openConversation,
  /** A session opened by a customer message, with its conversation and agent. */
  'conversations.session': async (owner) => {
    const ids = await openConversation(owner);
    const message = await owner.api
      .post(`/api/v1/conversations/${ids['conversations.conversation']}/messages`)
      .send({ sender: 'customer', content: 'sweep' })
      .expect(201);
    return { ...ids, 'conversations.session': message.body.data.session_uuid };
  },
};
