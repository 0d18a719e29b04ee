import type { ResourceFixtures, TestTenant } from '../../core/testing';

/** How the cross-tenant sweep (and plugin tests) make the agents plugin's resources. */
async function agentWith(owner: TestTenant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await owner.api.post('/api/v1/agents').send({ name: 'sweep', ...body }).expect(201);
  return res.body.data;
}

/** Adds one item through its POST route and returns the agent and the new item's uuid. */
async function added(owner: TestTenant, segment: string, member: string, idKey: string, body: Record<string, unknown>) {
  const agent = await agentWith(owner);
  const res = await owner.api.post(`/api/v1/agents/${agent.agent_uuid}/${segment}`).send(body).expect(200);
  const items: Array<Record<string, string>> = res.body.data[member];
  return { agent: agent.agent_uuid as string, item: items[items.length - 1][idKey] };
}

const child =
  (kind: string, segment: string, member: string, idKey: string, body: Record<string, unknown>) =>
  async (owner: TestTenant) => {
    const { agent, item } = await added(owner, segment, member, idKey, body);
    return { 'agents.agent': agent, [kind]: item };
  };

export const fixtures: ResourceFixtures = {
  'agents.agent': async (owner) => ({ 'agents.agent': (await agentWith(owner)).agent_uuid }),
  'agents.guideline': child('agents.guideline', 'guidelines', 'guidelines', 'uuid', { content: 'Be brief' }),
  'agents.note': child('agents.note', 'notes', 'notes', 'uuid', { content: 'A note' }),
  'agents.procedure': child('agents.procedure', 'procedures', 'procedures', 'uuid', { name: 'Booking' }),
  'agents.training-row': child('agents.training-row', 'training', 'training', 'uuid', { content: 'Hi' }),
  'agents.intent': child('agents.intent', 'intents', 'intents', 'intent_uuid', { key: 'book' }),
  'agents.webhook': child('agents.webhook', 'webhooks', 'webhooks', 'webhook_uuid', { url: 'https://example.com/hook', events: ['agent.updated'] }),
  'agents.routing-rule': child('agents.routing-rule', 'routing-rules', 'routing_rules', 'uuid', { destination_type: 'extension', destination: '201' }),
  'agents.guard-rule': child('agents.guard-rule', 'guard-rules', 'guard_rules', 'uuid', { when_condition: 'x', then_action: 'end_conversation', say_before_end: 'Bye' }),
  'agents.phone-number': child('agents.phone-number', 'phone-numbers', 'phone_numbers', 'phone_number_uuid', { number: '+14155550100' }),
  'agents.channel': child('agents.channel', 'channels', 'channels', 'uuid', { type: 'web_chat' }),
};

/** Members the sweep cannot call with the owner's own id either (so its refusal of another tenant's proves nothing). */
export const unswept: Record<string, string> = {
  ...Object.fromEntries(
    ['POST /api/v1/agents', 'PUT /api/v1/agents/:uuid'].flatMap((route) => [
      [`${route} settings.voice.voice_profile.voice_uuid`, 'no plugin makes voices: nothing of this API to check it against'],
      [`${route} appointments.schedule_assignments.0.schedule_uuid`, 'no plugin makes schedules: nothing of this API to check it against'],
    ]),
  ),
  'POST /api/v1/agents procedures.0.steps.0.intent_uuid': 'a new agent has no intents yet: every intent_uuid is a 422 (PUT /api/v1/agents/:uuid sweeps the same check)',
  'PATCH /api/v1/agents/:uuid/procedures/:procedureUuid steps.0.intent_uuid':
    'must be an intent of the procedure’s agent, and the fixtures make the intent and the procedure on two agents (PUT /api/v1/agents/:uuid sweeps the same check)',
};
