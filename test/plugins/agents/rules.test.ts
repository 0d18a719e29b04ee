import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, createAgent, failsWith, ids, item, others, readAgent, rejected, write, type Json } from './agent-test-helpers';

const END = { when_condition: 'The caller is abusive', then_action: 'end_conversation', say_before_end: 'Goodbye.' };
const FORWARD = { when_condition: 'Medical emergency', then_action: 'forward', destination_type: 'phone_number', destination: '+15550100' };

describe('agent routing rules and guard rules', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN] });
  });
  afterAll(() => kit?.stop());

  describe('guard rules', () => {
    async function seeded(): Promise<Json> {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'guard-rules', END);
      return write(kit.api, 'post', agent_uuid, 'guard-rules', FORWARD);
    }

    it('POST appends a guard rule with defaults; existing guards are untouched', async () => {
      const before = await seeded();
      expect(before.guard_rules).toEqual([
        {
          uuid: expect.any(String),
          name: '',
          when_condition: 'The caller is abusive',
          example_phrases: [],
          then_action: 'end_conversation',
          selected_channels: [],
          say_before_forwarding: '',
          say_before_end: 'Goodbye.',
          destination_type: '',
          destination: '',
          destination_agent_uuid: null,
          is_active: true,
          is_default: false,
        },
        expect.objectContaining({ ...FORWARD, destination_agent_uuid: null }),
      ]);
      const after = await write(kit.api, 'post', before.agent_uuid, 'guard-rules', { ...END, name: 'Third', example_phrases: ['go away'], selected_channels: ['phone'] });
      expect(after.guard_rules).toHaveLength(3);
      expect(after.guard_rules.slice(0, 2)).toEqual(before.guard_rules);
      expect(after.guard_rules[2]).toMatchObject({ name: 'Third', example_phrases: ['go away'], selected_channels: ['phone'] });
    });

    it('when_condition and then_action are required on create', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', {}, ['when_condition', 'then_action']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { then_action: 'end_conversation', say_before_end: 'bye' }, ['when_condition']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x' }, ['then_action']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...END, when_condition: '' }, ['when_condition']);
    });

    it('then_action outside the enum is 422', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'hang_up' }, ['then_action']);
      const agent = await write(kit.api, 'post', agent_uuid, 'guard-rules', END);
      await rejected(kit.api, 'patch', agent_uuid, `guard-rules/${agent.guard_rules[0].uuid}`, { then_action: 'transfer' }, ['then_action']);
    });

    it('forward needs destination_type and destination', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'forward' }, ['destination_type']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'forward', destination: '201' }, ['destination_type']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'forward', destination_type: 'extension' }, ['destination']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'forward', destination_type: 'extension', destination: '' }, ['destination']);
    });

    it('end_conversation needs say_before_end (blank is not enough)', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'end_conversation' }, ['say_before_end']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'end_conversation', say_before_end: '   ' }, ['say_before_end']);
    });

    it('destination_type=agent needs destination_agent_uuid: another agent of this tenant', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const sibling = await createAgent(kit.api, { name: 'Sibling' });
      const foreignTenant = await kit.createTenant();
      const foreign = await createAgent(foreignTenant.api);
      const rule = { when_condition: 'x', then_action: 'forward', destination_type: 'agent' };
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', rule, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: null }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: foreign.agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: '01900000-0000-7000-8000-0000000000dd' }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: 'sibling' }, ['destination_agent_uuid']);
      const ok = await write(kit.api, 'post', agent_uuid, 'guard-rules', { ...rule, destination_agent_uuid: sibling.agent_uuid });
      expect(ok.guard_rules[0]).toMatchObject({ destination_type: 'agent', destination: '', destination_agent_uuid: sibling.agent_uuid });

      // The sibling cannot be deleted while the guard forwards to it.
      await failsWith(kit.api.delete(`/api/v1/agents/${sibling.agent_uuid}`), 409);
      expect((await readAgent(kit.api, sibling.agent_uuid)).name).toBe('Sibling');
    });

    it('PATCH that would break the create rules is 422; nothing changes', async () => {
      const before = await seeded();
      const [end, forward] = before.guard_rules;
      const foreignTenant = await kit.createTenant();
      const foreign = await createAgent(foreignTenant.api);
      const A = before.agent_uuid;
      await rejected(kit.api, 'patch', A, `guard-rules/${end.uuid}`, { say_before_end: '' }, ['say_before_end']);
      await rejected(kit.api, 'patch', A, `guard-rules/${end.uuid}`, { then_action: 'forward' }, ['destination_type']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { then_action: 'end_conversation' }, ['say_before_end']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { destination: '' }, ['destination']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { destination_type: 'agent' }, ['destination_agent_uuid']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { destination_type: 'agent', destination_agent_uuid: foreign.agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { when_condition: '' }, ['when_condition']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { then_action: null }, ['then_action']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { is_active: 'true' }, ['is_active']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { example_phrases: 'hi' }, ['example_phrases']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { example_phrases: ['ok', 3] }, ['example_phrases.1']);
      await rejected(kit.api, 'patch', A, `guard-rules/${forward.uuid}`, { action: 'forward' }, ['action']);
    });

    it('PATCH that keeps the rules valid changes only that rule', async () => {
      const before = await seeded();
      const [end, forward] = before.guard_rules;
      const sibling = await createAgent(kit.api, { name: 'Sibling' });
      let after = await write(kit.api, 'patch', before.agent_uuid, `guard-rules/${forward.uuid}`, { destination_type: 'agent', destination_agent_uuid: sibling.agent_uuid });
      expect(item(after.guard_rules, forward.uuid)).toEqual({ ...forward, destination_type: 'agent', destination_agent_uuid: sibling.agent_uuid });
      expect(item(after.guard_rules, end.uuid)).toEqual(end);
      after = await write(kit.api, 'patch', before.agent_uuid, `guard-rules/${end.uuid}`, { then_action: 'forward', destination_type: 'extension', destination: '201', is_active: false });
      expect(item(after.guard_rules, end.uuid)).toEqual({ ...end, then_action: 'forward', destination_type: 'extension', destination: '201', is_active: false });
    });

    it('a guard switched away from destination_type=agent no longer holds on to that agent', async () => {
      // After the PATCH the guard forwards to extension 201; it no longer forwards to the
      // sibling, so the sibling must be deletable (not 409 "destination of rules").
      const { agent_uuid } = await createAgent(kit.api);
      const sibling = await createAgent(kit.api, { name: 'Sibling' });
      const agent = await write(kit.api, 'post', agent_uuid, 'guard-rules', { when_condition: 'x', then_action: 'forward', destination_type: 'agent', destination_agent_uuid: sibling.agent_uuid });
      const guard = agent.guard_rules[0];
      const after = await write(kit.api, 'patch', agent_uuid, `guard-rules/${guard.uuid}`, { destination_type: 'extension', destination: '201' });
      expect(item(after.guard_rules, guard.uuid)).toMatchObject({ destination_type: 'extension', destination: '201' });
      const res = await kit.api.delete(`/api/v1/agents/${sibling.agent_uuid}`);
      expect({ status: res.status, message: res.body.message }).toEqual({ status: 200, message: 'Agent deleted' });
      expect(item((await readAgent(kit.api, agent_uuid)).guard_rules, guard.uuid)).toMatchObject({ destination_type: 'extension', destination: '201' });
    });

    it('DELETE removes only that guard; a guard of agent B on agent A’s path is 404', async () => {
      const a = await seeded();
      const b = await seeded();
      const after = await write(kit.api, 'delete', a.agent_uuid, `guard-rules/${a.guard_rules[0].uuid}`);
      expect(after.guard_rules).toEqual([a.guard_rules[1]]);
      await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/guard-rules/${b.guard_rules[0].uuid}`).send({ name: 'hijack' }), 404);
      await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/guard-rules/${b.guard_rules[0].uuid}`), 404);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(b);
    });
  });

  describe('routing rules', () => {
    const rule = (department: string, extra: Json = {}) => ({ department_name: department, destination_type: 'extension', destination: '201', ...extra });

    it('are listed by priority, lower first; a POST without priority goes after the last', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Five', { priority: 5 }));
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('One', { priority: 1 }));
      const before = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Minus', { priority: -3 }));
      expect(before.routing_rules.map((r: Json) => [r.department_name, r.priority])).toEqual([
        ['Minus', -3],
        ['One', 1],
        ['Five', 5],
      ]);
      const after = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Last'));
      expect(after.routing_rules.map((r: Json) => [r.department_name, r.priority])).toEqual([
        ['Minus', -3],
        ['One', 1],
        ['Five', 5],
        ['Last', 6],
      ]);
      expect(after.routing_rules.slice(0, 3)).toEqual(before.routing_rules);
    });

    it('the first rule without priority gets one, and one after an all-negative list still goes last', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const first = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('First'));
      expect(first.routing_rules[0].priority).toBe(1);
      const other = await createAgent(kit.api);
      await write(kit.api, 'post', other.agent_uuid, 'routing-rules', rule('Neg', { priority: -10 }));
      const after = await write(kit.api, 'post', other.agent_uuid, 'routing-rules', rule('After'));
      expect(after.routing_rules.map((r: Json) => r.department_name)).toEqual(['Neg', 'After']);
    });

    it('POST fills defaults and keeps the members sent', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const agent = await write(kit.api, 'post', agent_uuid, 'routing-rules', {
        destination_type: 'extension',
        destination: '301',
        phrases: ['billing', 'invoice'],
        transfer_config: { ring_seconds: 20 },
      });
      expect(agent.routing_rules).toEqual([
        {
          uuid: expect.any(String),
          detection_mode: 'intent',
          trigger_keyword: '',
          department_name: '',
          phrases: ['billing', 'invoice'],
          ai_prompt: '',
          voice_response: '',
          voice_on_error: '',
          voice_on_success: '',
          destination_type: 'extension',
          destination: '301',
          destination_agent_uuid: null,
          transfer_type: 'transfer_call',
          transfer_config: { ring_seconds: 20 },
          priority: 1,
          is_active: true,
        },
      ]);
    });

    it('PATCH {is_active: false} changes only that member of that rule', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Sales', { priority: 1, phrases: ['sales'] }));
      const before = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Support', { priority: 2 }));
      const sales = before.routing_rules[0];
      const after = await write(kit.api, 'patch', agent_uuid, `routing-rules/${sales.uuid}`, { is_active: false });
      expect(item(after.routing_rules, sales.uuid)).toEqual({ ...sales, is_active: false });
      expect(others(after.routing_rules, sales.uuid)).toEqual(others(before.routing_rules, sales.uuid));
    });

    it('PATCH priority re-sorts the list', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('A', { priority: 1 }));
      const before = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('B', { priority: 2 }));
      const [a, b] = before.routing_rules;
      const after = await write(kit.api, 'patch', agent_uuid, `routing-rules/${a.uuid}`, { priority: 10 });
      expect(after.routing_rules).toEqual([b, { ...a, priority: 10 }]);
    });

    it('DELETE answers the agent without the rule; the others are untouched', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('A'));
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('B'));
      const before = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('C'));
      const middle = before.routing_rules[1].uuid;
      const after = await write(kit.api, 'delete', agent_uuid, `routing-rules/${middle}`);
      expect(ids(after.routing_rules)).not.toContain(middle);
      expect(after.routing_rules).toEqual(others(before.routing_rules, middle));
      await failsWith(kit.api.delete(`/api/v1/agents/${agent_uuid}/routing-rules/${middle}`), 404);
    });

    it('priority must be an integer; bad members are 422 at their path; nothing written', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const agent = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('A'));
      const A = agent.routing_rules[0].uuid;
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', rule('X', { priority: 1.5 }), ['priority']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', rule('X', { priority: '1' }), ['priority']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', { department_name: 'no destination type' }, ['destination_type']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', { destination_type: 'extension' }, ['destination']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', rule('X', { phrases: ['ok', { text: 'no' }] }), ['phrases.1']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', rule('X', { transfer_config: 'warm' }), ['transfer_config']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', rule('X', { target: 'y' }), ['target']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${A}`, { priority: 2.5 }, ['priority']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${A}`, { priority: null }, ['priority']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${A}`, { is_active: 0 }, ['is_active']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${A}`, { destination: '' }, ['destination']);
    });

    it('destination_type=agent needs another agent of this tenant (POST and PATCH)', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const sibling = await createAgent(kit.api, { name: 'Sibling' });
      const foreignTenant = await kit.createTenant();
      const foreign = await createAgent(foreignTenant.api);
      const toAgent = { destination_type: 'agent' };
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', toAgent, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', { ...toAgent, destination_agent_uuid: foreign.agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', { ...toAgent, destination_agent_uuid: agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'post', agent_uuid, 'routing-rules', { ...toAgent, destination_agent_uuid: '01900000-0000-7000-8000-0000000000ee' }, ['destination_agent_uuid']);
      const agent = await write(kit.api, 'post', agent_uuid, 'routing-rules', { ...toAgent, destination_agent_uuid: sibling.agent_uuid });
      const ruleUuid = agent.routing_rules[0].uuid;
      expect(agent.routing_rules[0]).toMatchObject({ destination_type: 'agent', destination_agent_uuid: sibling.agent_uuid });

      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${ruleUuid}`, { destination_agent_uuid: foreign.agent_uuid }, ['destination_agent_uuid']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${ruleUuid}`, { destination_agent_uuid: null }, ['destination_agent_uuid']);
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${ruleUuid}`, { destination_agent_uuid: agent_uuid }, ['destination_agent_uuid']);

      // An extension rule turned into an agent rule without the agent is refused too.
      const ext = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Ext'));
      const extUuid = ext.routing_rules[1].uuid;
      await rejected(kit.api, 'patch', agent_uuid, `routing-rules/${extUuid}`, { destination_type: 'agent' }, ['destination_agent_uuid']);

      await failsWith(kit.api.delete(`/api/v1/agents/${sibling.agent_uuid}`), 409);
      await write(kit.api, 'delete', agent_uuid, `routing-rules/${ruleUuid}`);
      await kit.api.delete(`/api/v1/agents/${sibling.agent_uuid}`).expect(200);
    });

    it('a rule switched away from destination_type=agent no longer holds on to that agent', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const sibling = await createAgent(kit.api, { name: 'Sibling' });
      const agent = await write(kit.api, 'post', agent_uuid, 'routing-rules', { destination_type: 'agent', destination_agent_uuid: sibling.agent_uuid });
      const ruleUuid = agent.routing_rules[0].uuid;
      await write(kit.api, 'patch', agent_uuid, `routing-rules/${ruleUuid}`, { destination_type: 'extension', destination: '201' });
      const res = await kit.api.delete(`/api/v1/agents/${sibling.agent_uuid}`);
      expect({ status: res.status, message: res.body.message }).toEqual({ status: 200, message: 'Agent deleted' });
    });

    it('a POST without priority after a rule at the highest allowed priority gives a priority the API accepts back', async () => {
      // `priority` is -1_000_000..1_000_000: "after the last" must stay in that range (or be refused),
      // or the rule as read can no longer be sent back.
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Top', { priority: 1_000_000 }));
      const res = await kit.api.post(`/api/v1/agents/${agent_uuid}/routing-rules`).send(rule('After'));
      if (res.status === 422) return; // refusing is acceptable too
      expect(res.status).toBe(200);
      const rules = res.body.data.routing_rules;
      expect(rules.map((r: Json) => r.department_name)).toEqual(['Top', 'After']);
      const { uuid, ...readBack } = rules[1];
      expect(readBack.priority).toBeLessThanOrEqual(1_000_000);
      await kit.api.patch(`/api/v1/agents/${agent_uuid}/routing-rules/${uuid}`).send(readBack).expect(200);
    });

    it('a rule as read can be sent back as a POST body: read-only uuid ignored, a new rule made', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const before = await write(kit.api, 'post', agent_uuid, 'routing-rules', rule('Copy me', { priority: 7, phrases: ['p'] }));
      const after = await write(kit.api, 'post', agent_uuid, 'routing-rules', before.routing_rules[0]);
      expect(after.routing_rules).toHaveLength(2);
      expect(after.routing_rules[0]).toEqual(before.routing_rules[0]);
      expect(after.routing_rules[1]).toEqual({ ...before.routing_rules[0], uuid: expect.any(String) });
      expect(after.routing_rules[1].uuid).not.toBe(before.routing_rules[0].uuid);
    });

    it('a routing rule of agent B on agent A’s path is 404; B’s rule is untouched', async () => {
      const a = await createAgent(kit.api);
      const b = await createAgent(kit.api);
      const bAgent = await write(kit.api, 'post', b.agent_uuid, 'routing-rules', rule('B'));
      const theirs = bAgent.routing_rules[0].uuid;
      await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/routing-rules/${theirs}`).send({ is_active: false }), 404);
      await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/routing-rules/${theirs}`), 404);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);
    });
  });
});
