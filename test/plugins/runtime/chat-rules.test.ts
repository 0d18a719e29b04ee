import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, byKind, isGuardCheck, RUNTIME_PLUGINS, streamChat } from './runtime-test-kit';

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: RUNTIME_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const chat = (agent: string, message: string, extra: Record<string, unknown> = {}) => kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message, ...extra });

const GUARDS = [
  { name: 'Emergency', when_condition: 'The customer describes a medical emergency', then_action: 'forward', destination_type: 'phone_number', destination: '+15550100', say_before_forwarding: 'Connecting you to our emergency line now.' },
  { name: 'Abuse', when_condition: 'The customer is abusive', then_action: 'end_conversation', say_before_end: 'This conversation has ended.' },
  { name: 'Voice only', when_condition: 'Anything', then_action: 'end_conversation', say_before_end: 'x', selected_channels: ['phone'] },
  { name: 'Off', when_condition: 'Anything at all', then_action: 'end_conversation', say_before_end: 'x', is_active: false },
];

async function guardedAgent(): Promise<{ agent: string; rules: any[] }> {
  const agent = await activeAgent(kit.api, { guard_rules: GUARDS });
  const rules = (await kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.guard_rules;
  return { agent, rules };
}

describe('guard rules', () => {
  it('are checked beside the reply with a guard_check schema of the channel’s active rules only', async () => {
    const { agent, rules } = await guardedAgent();
    model.reply(byKind({ content: 'Happy to help.' }), byKind({ content: 'Happy to help.' }));
    const turn = (await chat(agent, 'Hello').expect(200)).body.data;
    expect(turn).toMatchObject({ status: 'open', reply: { content: 'Happy to help.' } });
    const check = model.requests.slice(-2).find(isGuardCheck)!;
    const schema = check.body.response_format.json_schema.schema;
    const allowed = schema.properties.rule_uuid.anyOf[0].enum;
    // The chat channel: not the voice-only rule, not the inactive one.
    expect(allowed.sort()).toEqual(rules.filter((r: any) => r.name === 'Emergency' || r.name === 'Abuse').map((r: any) => r.uuid).sort());
    expect(check.body.messages.at(-1)).toEqual({ role: 'user', content: 'Hello' });
  });

  it('forward: the reply is dropped, the guard’s line said, the conversation transferred', async () => {
    const { agent, rules } = await guardedAgent();
    const emergency = rules.find((r: any) => r.name === 'Emergency');
    const script = byKind({ content: 'Let me book you in for next week.' }, { rule_uuid: emergency.uuid });
    model.reply(script, script);
    const turn = (await chat(agent, 'My chest hurts badly').expect(200)).body.data;
    expect(turn).toMatchObject({
      status: 'transferred',
      messages: [{ content: 'Connecting you to our emergency line now.' }],
      transfer: { rule_uuid: emergency.uuid, kind: 'guard', destination_type: 'phone_number', destination: '+15550100' },
    });
    const messages = (await kit.api.get(`/api/v1/conversations/${turn.conversation_uuid}/messages`).expect(200)).body.data.items;
    expect(messages.map((m: any) => m.content)).not.toContain('Let me book you in for next week.');
  });

  it('end_conversation: the reply is dropped, the closing line said, the conversation closed; a stream never shows the dropped text', async () => {
    const { agent, rules } = await guardedAgent();
    const abuse = rules.find((r: any) => r.name === 'Abuse');
    const script = byKind({ content: 'Sure thing!', chunks: ['Sure ', 'thing!'] } as any, { rule_uuid: abuse.uuid });
    model.reply(script, script);
    const { res, events } = await streamChat(kit.api, agent, { message: 'You are useless, idiot' });
    expect(res.status).toBe(200);
    expect(events.filter((e) => e.event === 'delta').map((e) => e.data.text)).toEqual(['This conversation has ended.']);
    expect(events.at(-1)!.data.data).toMatchObject({ status: 'closed', transfer: null, reply: { content: 'This conversation has ended.' } });
  });

  it('no active guard rule: no guard call', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Hi.' });
    await chat(agent, 'Hello').expect(200);
    expect(isGuardCheck(model.requests.at(-1)!)).toBe(false);
  });
});

describe('text settings that need no model', () => {
  /** A one-hour window twelve hours from now, in UTC: now is always outside it. */
  function closedWindow(): { start: string; end: string } {
    const hour = (new Date().getUTCHours() + 12) % 24;
    const pad = (h: number) => String(h).padStart(2, '0');
    return { start: `${pad(hour)}:00`, end: `${pad((hour + 1) % 24)}:00` };
  }

  it('outside working hours the offline message answers, and no model is called', async () => {
    const agent = await activeAgent(kit.api, {
      settings: { text: { working_hours: { enabled: true, ...closedWindow(), timezone: 'UTC', offline_message: 'We are closed; back at opening time.' } } },
    });
    const before = model.requests.length;
    const turn = (await chat(agent, 'Hello?').expect(200)).body.data;
    expect(turn).toMatchObject({ status: 'open', reply: { content: 'We are closed; back at opening time.' } });
    expect(model.requests.length).toBe(before);
  });

  it('past the daily limit of customer messages the limit message answers, with no model call', async () => {
    const agent = await activeAgent(kit.api, {
      settings: { text: { daily_limits: { daily_max_messages_per_conversation: 2, daily_conversation_limit_exceeded_message: 'That is all for today.' } } },
    });
    model.reply({ content: 'One.' }, { content: 'Two.' });
    const first = (await chat(agent, 'm1').expect(200)).body.data;
    await chat(agent, 'm2', { conversation_uuid: first.conversation_uuid }).expect(200);
    const before = model.requests.length;
    const third = (await chat(agent, 'm3', { conversation_uuid: first.conversation_uuid }).expect(200)).body.data;
    expect(third.reply.content).toBe('That is all for today.');
    expect(model.requests.length).toBe(before);
  });

  it('split messages: a reply with paragraphs becomes several messages', async () => {
    const agent = await activeAgent(kit.api, { settings: { text: { advanced: { split_messages: true } } } });
    model.reply({ content: 'Hello!\n\nWe open at nine.\n\nAnything else?' });
    const turn = (await chat(agent, 'Hi').expect(200)).body.data;
    expect(turn.messages.map((m: any) => m.content)).toEqual(['Hello!', 'We open at nine.', 'Anything else?']);
    expect(turn.reply.content).toBe('Anything else?');
  });
});
