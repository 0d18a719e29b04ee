import type { ResourceFixtures } from '../../../core/testing';

const POLL_MS = 25;
const DEADLINE_MS = 15_000;

export const fixtures: ResourceFixtures = {
  /**
   * A closed session that has an evaluation record. No model is needed: without one,
   * the analyzer fails at once with "no LLM server is configured", which is not worth
   * retrying, so the record (status `failed`) is stored on the first delivery.
   */
  'evaluation.evaluated-session': async (owner) => {
    await owner.api.put('/api/v1/evaluate/default').send({ text: { sentiment_analyzer: { enabled: true } } }).expect(200);
    const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
    const agentUuid: string = agent.body.data.agent_uuid;
    const conversation = await owner.api.post('/api/v1/conversations').send({ agent_uuid: agentUuid, channel: 'chat' }).expect(201);
    const conversationUuid: string = conversation.body.data.uuid;
    const first = await owner.api.post(`/api/v1/conversations/${conversationUuid}/messages`).send({ sender: 'customer', content: 'Hello' }).expect(201);
    await owner.api.post(`/api/v1/conversations/${conversationUuid}/messages`).send({ sender: 'agent', content: 'Hi, how can I help?' }).expect(201);
    await owner.api.post(`/api/v1/conversations/${conversationUuid}/close`).expect(200);
    const sessionUuid: string = first.body.data.session_uuid;
    const deadline = Date.now() + DEADLINE_MS;
    while ((await owner.api.get(`/api/v1/sessions/${sessionUuid}/evaluation`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`session ${sessionUuid} was not evaluated within ${DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return {
      'agents.agent': agentUuid,
      'conversations.conversation': conversationUuid,
      'conversations.session': sessionUuid,
      'evaluation.evaluated-session': sessionUuid,
    };
  },
};
