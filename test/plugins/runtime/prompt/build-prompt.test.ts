import { buildPrompt, estimateTokens, RECENT_HISTORY_KEPT, type PromptInput } from '../../../../plugins/runtime/prompt';
import { agentFixture, textOf } from './agent-fixture';

const NOW = new Date('2026-11-27T00:34:53.000Z');

function input(overrides: Partial<PromptInput> = {}): PromptInput {
  return {
    agent: agentFixture(),
    history: [
      { sender: 'customer', message_type: 'text', content: 'Hello' },
      { sender: 'agent', message_type: 'text', content: 'Hi, how can I help?' },
      { sender: 'customer', message_type: 'text', content: 'I want a cleaning' },
    ],
    memory: [
      { summary: 'Asked about whitening', fields: { preferred_day: 'Monday', visits: 2, empty: '' }, created_at: '2026-11-20T10:00:00.000Z' },
      { summary: 'First contact', fields: {}, created_at: '2026-10-01T10:00:00.000Z' },
    ],
    contact: { name: 'Ana', phone_number: '+34600000000', email: 'ana@example.com' },
    channel: 'sms',
    now: NOW,
    budgetTokens: 100_000,
    ...overrides,
  };
}

const systemOf = (result: ReturnType<typeof buildPrompt>) => {
  expect(result.messages[0].role).toBe('system');
  return result.messages[0].content as string;
};

/** Asserts each text occurs in `text`, in this order. */
function expectInOrder(text: string, parts: string[]) {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) throw new Error(`"${part}" not found after position ${from} in:\n${text}`);
    from = at + part.length;
  }
}

describe('buildPrompt: the system message', () => {
  it('has every piece of the agent, in the documented order', () => {
    const system = systemOf(buildPrompt(input()));
    expectInOrder(system, [
      'You are Reception, an AI agent',
      '# Who you are',
      'Description: Front desk of a dental clinic',
      'Company: Smile Clinic',
      'Role: Receptionist',
      'Objective: Book check-ups',
      'Tone: Warm',
      'Behavior: Patient and clear',
      "Company's services: Check-ups, cleaning, whitening",
      'Topic: Dental appointments',
      'Length and detail of replies: Short replies',
      'Interest in the product: Whitening offers',
      'When the customer is not interested: Thank them and do not insist',
      'Recommendations: Suggest a cleaning with every check-up',
      '# Instructions\nAlways confirm the date back to the customer.',
      '# Language and time',
      'Reply in English (United States) (en-US).',
      'Time zone: Europe/Madrid. Current local time: Friday 2026-11-27 01:34 (UTC+01:00).',
      'Channel: sms.',
      '# Style',
      '- Emoji usage: None.',
      '- Energy: Friendly.',
      '- Empathy: Medium.',
      '- When you are less than 60% sure what the customer means, ask a clarifying question',
      '# Guidelines\n1. First guideline\n2. Second guideline',
      '# Notes\n- Parking is free',
      '# Procedures\n\n## Booking\nHow to book a visit\n1. Ask for a date\n2. Book it (call the tool `book_visit`)',
      '# Examples',
      'Customer: How much is a cleaning?\nIntent: pricing\nYou: A cleaning is 60 EUR.',
      'Customer: Are you open Saturdays?\nYou: Yes, until 2 PM.',
      '# What you remember about this contact',
      '- 2026-10-01: First contact',
      '- 2026-11-20: Asked about whitening\n  preferred_day: Monday\n  visits: 2',
      '# The contact\nName: Ana\nPhone: +34600000000\nEmail: ana@example.com',
    ]);
    expect(system).not.toContain('empty:');
    // custom_prompt is its own section, not a persona line.
    expect(system).not.toContain('Custom prompt');
  });

  it('tells the local time in the agent time zone, across DST', () => {
    const newYork = agentFixture({ timezone: 'America/New_York' });
    expect(systemOf(buildPrompt(input({ agent: newYork })))).toContain('Current local time: Thursday 2026-11-26 19:34 (UTC-05:00).');
    const summer = systemOf(buildPrompt(input({ now: new Date('2026-07-01T12:00:00Z') })));
    expect(summer).toContain('Current local time: Wednesday 2026-07-01 14:00 (UTC+02:00).');
    const kathmandu = agentFixture({ timezone: 'Asia/Kathmandu' });
    expect(systemOf(buildPrompt(input({ agent: kathmandu })))).toContain('Friday 2026-11-27 06:19 (UTC+05:45)');
    const unknown = agentFixture({ timezone: 'Mars/Olympus' });
    expect(systemOf(buildPrompt(input({ agent: unknown })))).toContain('Time zone: UTC. Current local time: Friday 2026-11-27 00:34 (UTC+00:00).');
  });

  it('never carries a secret, a webhook or an intent webhook', () => {
    const agent = agentFixture();
    // Even secret members a reader might someday let through stay out: the prompt reads no webhook at all.
    (agent.webhooks as any[])[0].secret = 'whsec_TOPSECRETVALUE1234';
    (agent.intents as any[])[0].webhook.auth_token = 'Bearer-TOPSECRET-TOKEN';
    const text = JSON.stringify(buildPrompt(input({ agent })).messages);
    for (const secret of ['TOPSECRETVALUE1234', 'TOPSECRET-TOKEN', 'WEBHOOK-URL-SECRET', 'INTENT-URL-SECRET', 'hooks.example.com', 'crm.example.com', 'has_secret', 'has_auth_token']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('book_visit');
  });

  it('is deterministic: the same input gives byte-identical messages', () => {
    const first = buildPrompt(input());
    const second = buildPrompt(input());
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    // Reading the input does not change it.
    const once = input();
    const copy = structuredClone(once);
    buildPrompt(once);
    expect(once).toEqual(copy);
  });

  it('leaves out empty sections, memory when memory-based context is off, and style it is not given', () => {
    const agent = agentFixture({ guidelines: [], notes: [], procedures: [], training: [], custom_prompt: '', description: '' });
    textOf(agent).advanced.use_memory_based_context = false;
    textOf(agent).advanced.split_messages = true;
    textOf(agent).personality.enable_small_talk = false;
    textOf(agent).confidence_controls.ask_clarifying_questions = false;
    const system = systemOf(buildPrompt(input({ agent, contact: null })));
    for (const heading of ['# Instructions', '# Guidelines', '# Notes', '# Procedures', '# Examples', '# What you remember', '# The contact', 'Description:']) {
      expect(system).not.toContain(heading);
    }
    expect(system).toContain('- No small talk: keep to the topic.');
    expect(system).toContain('say what you are unsure about instead of guessing');
    expect(system).toContain('put a blank line between messages');
  });
});

describe('buildPrompt: the conversation', () => {
  it('replays customer and agent text as user and assistant, and no tool, event or system message', () => {
    const result = buildPrompt(
      input({
        history: [
          { sender: 'customer', message_type: 'text', content: 'Hi' },
          { sender: 'agent', message_type: 'tool', content: '{"name":"book_visit","result":{"ok":true}}' },
          { sender: 'system', message_type: 'event', content: 'conversation transferred' },
          { sender: 'agent', message_type: 'text', content: 'Booked.' },
          { sender: 'customer', message_type: 'audio', content: 'thanks a lot' },
          { sender: 'customer', message_type: 'text', content: '   ' },
        ],
      }),
    );
    expect(result.messages.slice(1)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Booked.' },
      { role: 'user', content: 'thanks a lot' },
    ]);
    expect(result.dropped).toEqual({ history: 0, training: 0 });
    expect(result.estimatedTokens).toBe(estimateTokens(result.messages));
  });
});

describe('buildPrompt: the token budget', () => {
  const history = Array.from({ length: 20 }, (_, index) => ({
    sender: index % 2 === 0 ? 'customer' : 'agent',
    message_type: 'text',
    content: `message ${String(index).padStart(2, '0')} ${'x'.repeat(200)}`,
  }));
  const training = Array.from({ length: 10 }, (_, index) => ({
    uuid: `0190a000-0000-7000-8000-0000000001${String(index).padStart(2, '0')}`,
    content: `question ${index} ${'y'.repeat(200)}`,
    intent: '',
    response: `answer ${index}`,
  }));
  const agent = agentFixture({ training });
  const full = buildPrompt(input({ agent, history, budgetTokens: 1_000_000 }));
  const kept = (result: ReturnType<typeof buildPrompt>) => result.messages.slice(1).map((message) => (message.content as string).slice(0, 10));

  it('keeps everything under a large budget, and estimates what it sends', () => {
    expect(full.dropped).toEqual({ history: 0, training: 0 });
    expect(full.messages).toHaveLength(21);
    expect(full.estimatedTokens).toBe(estimateTokens(full.messages));
  });

  it('cuts old history first, oldest first, before any training example', () => {
    const budget = full.estimatedTokens - 100; // two history messages' worth (each about 57 tokens)
    const result = buildPrompt(input({ agent, history, budgetTokens: budget }));
    expect(result.dropped).toEqual({ history: 2, training: 0 });
    expect(kept(result)[0]).toBe('message 02');
    expect(result.estimatedTokens).toBe(estimateTokens(result.messages));
    expect(result.estimatedTokens).toBeLessThanOrEqual(budget);
  });

  it('then cuts training examples oldest first, keeping the recent history', () => {
    const withoutOldHistory = buildPrompt(input({ agent, history: history.slice(-RECENT_HISTORY_KEPT), budgetTokens: 1_000_000 }));
    const budget = withoutOldHistory.estimatedTokens - 120; // about two examples
    const result = buildPrompt(input({ agent, history, budgetTokens: budget }));
    expect(result.dropped.history).toBe(20 - RECENT_HISTORY_KEPT);
    expect(result.dropped.training).toBeGreaterThanOrEqual(2);
    expect(result.dropped.training).toBeLessThan(10);
    const system = systemOf(result);
    for (let index = 0; index < 10; index++) {
      expect(system.includes(`question ${index} `)).toBe(index >= result.dropped.training);
    }
    expect(kept(result)).toEqual(['message 14', 'message 15', 'message 16', 'message 17', 'message 18', 'message 19']);
    expect(result.estimatedTokens).toBe(estimateTokens(result.messages));
    expect(result.estimatedTokens).toBeLessThanOrEqual(budget);
  });

  it('under a tiny budget keeps the newest customer message, persona, guidelines, notes, procedures, memory and contact', () => {
    const result = buildPrompt(input({ agent, history, budgetTokens: 1 }));
    expect(result.dropped).toEqual({ history: 19, training: 10 });
    // The newest customer message is message 18 (message 19 is the agent's).
    expect(result.messages.slice(1)).toEqual([{ role: 'user', content: history[18].content }]);
    const system = systemOf(result);
    for (const part of ['# Who you are', '# Instructions', '# Guidelines', '1. First guideline', '# Notes', '# Procedures', '# What you remember', '# The contact']) {
      expect(system).toContain(part);
    }
    expect(system).not.toContain('# Examples');
    expect(result.estimatedTokens).toBe(estimateTokens(result.messages));
    expect(result.estimatedTokens).toBeGreaterThan(1);
  });
});
