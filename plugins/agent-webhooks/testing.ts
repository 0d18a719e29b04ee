import { newUuid } from '../../core';
import type { ResourceFixtures, TestKernel, TestTenant } from '../../core/testing';

/**
 * How the cross-tenant sweep makes a delivery: an agent with a webhook (through the
 * agents plugin's routes) and a failed delivery row written straight into the database,
 * since deliveries only come from events.
 */
async function delivery(owner: TestTenant, kit: TestKernel): Promise<Record<string, string>> {
  const agent = (await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201)).body.data.agent_uuid as string;
  const hooks = (await owner.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url: 'https://example.com/hook', events: ['agent.updated'] }).expect(200)).body.data.webhooks;
  const webhook = hooks[hooks.length - 1].webhook_uuid as string;
  const uuid = newUuid();
  await kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into agent_webhook_deliveries (uuid, tenant_uuid, created_at, updated_at, agent_uuid, webhook_uuid, event, body, status, attempts, queue_token)
       values (?, ?, now(), now(), ?, ?, 'agent.updated', '{}', 'failed', 1, ?)`,
      [uuid, owner.tenant.uuid, agent, webhook, newUuid()],
    );
  return { 'agents.agent': agent, 'agents.webhook': webhook, 'agent-webhooks.delivery': uuid };
}

export const fixtures: ResourceFixtures = { 'agent-webhooks.delivery': delivery };
