import crypto from 'node:crypto';
import type { ResourceFixtures } from '../../../core/testing';

export const fixtures: ResourceFixtures = {
  /** A waiting `follow_up` task a day ahead, of a new agent, for a contact found or created by email. */
  'outreach.task': async (owner) => {
    const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
    const agentUuid: string = agent.body.data.agent_uuid;
    const task = await owner.api
      .post('/api/v1/tasks')
      .send({
        type: 'follow_up',
        agent_uuid: agentUuid,
        contact: { email: `task-sweep-${crypto.randomBytes(4).toString('hex')}@example.com` },
        scheduled_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
      })
      .expect(201);
    return { 'agents.agent': agentUuid, 'contacts.contact': task.body.data.contact_uuid, 'outreach.task': task.body.data.uuid };
  },
};
