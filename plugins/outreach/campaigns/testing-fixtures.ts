import type { TestTenant, ResourceFixtures } from '../../../core/testing';
import { fixtures as contactFixtures } from '../../contacts/testing';

/**
 * The fixtures of rules, campaigns, pools, pool items and listings. Campaigns are of
 * `taskType`, which an installed executor must run: `follow_up` is built in; a test
 * with an executor of its own may pass its type.
 */
export function campaignFixtures(taskType = 'follow_up'): ResourceFixtures {
  const campaign = async (owner: TestTenant) => {
    const agent = await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201);
    const agentUuid: string = agent.body.data.agent_uuid;
    const res = await owner.api.post('/api/v1/campaigns').send({ name: 'sweep', agent_uuid: agentUuid, task_type: taskType }).expect(201);
    return { 'agents.agent': agentUuid, 'outreach.campaign': res.body.data.uuid as string };
  };
  const pool = async (owner: TestTenant) => {
    const ids = await campaign(owner);
    const res = await owner.api.post('/api/v1/pools').send({ campaign_uuid: ids['outreach.campaign'], name: 'sweep' }).expect(201);
    return { ...ids, 'outreach.pool': res.body.data.uuid as string };
  };
  return {
    'outreach.rule': async (owner) => {
      const res = await owner.api.post('/api/v1/rules').send({ name: 'sweep' }).expect(201);
      return { 'outreach.rule': res.body.data.uuid };
    },
    'outreach.campaign': campaign,
    'outreach.pool': pool,
    /** A contact in a pool: `outreach.pool-item` is the contact's uuid, `outreach.pool` its pool's. */
    'outreach.pool-item': async (owner, kit) => {
      const ids = await pool(owner);
      const contact = (await contactFixtures['contacts.contact'](owner, kit))['contacts.contact'];
      await owner.api.post(`/api/v1/pools/${ids['outreach.pool']}/contacts`).send({ contact_uuids: [contact] }).expect(200);
      return { ...ids, 'contacts.contact': contact, 'outreach.pool-item': contact };
    },
    'outreach.listing': async (owner) => {
      const res = await owner.api.post('/api/v1/listings').send({ name: 'sweep' }).expect(201);
      return { 'outreach.listing': res.body.data.uuid };
    },
  };
}

export const fixtures: ResourceFixtures = campaignFixtures();
