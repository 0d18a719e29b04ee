import { DEFAULT_DAILY_LIMIT_MESSAGE, activeRoutingRules, dailyLimit, guardRulesFor, splitMessages } from '../../../../plugins/runtime/turn-rules';
import { agentFixture, textOf } from '../prompt/agent-fixture';

describe('dailyLimit', () => {
  it('applies the default limit of the settings with a default message', () => {
    expect(dailyLimit(agentFixture())).toEqual({ max: 100, message: DEFAULT_DAILY_LIMIT_MESSAGE });
  });

  it('takes the configured limit and message', () => {
    const agent = agentFixture();
    Object.assign(textOf(agent).daily_limits, { daily_max_messages_per_conversation: 3, daily_conversation_limit_exceeded_message: ' Enough for today. ' });
    expect(dailyLimit(agent)).toEqual({ max: 3, message: 'Enough for today.' });
  });

  it('is null without a usable limit', () => {
    expect(dailyLimit(agentFixture({ settings: {} }))).toBeNull();
    const agent = agentFixture();
    textOf(agent).daily_limits.daily_max_messages_per_conversation = 0;
    expect(dailyLimit(agent)).toBeNull();
  });
});

describe('splitMessages', () => {
  const on = () => {
    const agent = agentFixture();
    textOf(agent).advanced.split_messages = true;
    return agent;
  };

  it('keeps the text as one message when off', () => {
    expect(splitMessages(agentFixture(), 'One.\n\nTwo.')).toEqual(['One.\n\nTwo.']);
  });

  it('splits at blank lines, trimmed, empty parts dropped', () => {
    expect(splitMessages(on(), '  One.\nStill one.\n\n\n  Two.  \n \t \nThree.\r\n\r\nFour.\n\n')).toEqual(['One.\nStill one.', 'Two.', 'Three.', 'Four.']);
    expect(splitMessages(on(), 'Just one.')).toEqual(['Just one.']);
    expect(splitMessages(on(), ' \n\n ')).toEqual([]);
  });

  it('keeps a fenced code block in one message', () => {
    expect(splitMessages(on(), 'Run this:\n\n```\na\n\nb\n```\n\nDone.')).toEqual(['Run this:', '```\na\n\nb\n```', 'Done.']);
  });
});

const guard = (uuid: string, selected_channels: string[], is_active = true) => ({
  uuid,
  name: uuid,
  when_condition: 'x',
  example_phrases: [],
  then_action: 'forward',
  selected_channels,
  say_before_forwarding: '',
  say_before_end: '',
  destination_type: 'phone_number',
  destination: '+1555',
  destination_agent_uuid: null,
  is_active,
  is_default: false,
});

describe('guardRulesFor', () => {
  const agent = agentFixture({
    guard_rules: [
      guard('all', []),
      guard('phone', ['phone']),
      guard('voice', ['voice']),
      guard('off', [], false),
      guard('web', ['web_chat']),
      guard('chat-sms', ['chat', 'sms']),
    ],
  });
  const names = (channel: string) => guardRulesFor(agent, channel).map((rule) => rule.uuid);

  it('takes the active rules for the channel in either spelling, and the ones for every channel', () => {
    expect(names('voice')).toEqual(['all', 'phone', 'voice']);
    expect(names('phone')).toEqual(['all', 'phone', 'voice']);
    expect(names('chat')).toEqual(['all', 'web', 'chat-sms']);
    expect(names('web_chat')).toEqual(['all', 'web', 'chat-sms']);
    expect(names('sms')).toEqual(['all', 'chat-sms']);
    expect(names('chatapp')).toEqual(['all']);
  });

  it('has none without rules', () => {
    expect(guardRulesFor(agentFixture(), 'chat')).toEqual([]);
  });
});

describe('activeRoutingRules', () => {
  const rule = (uuid: string, priority: number, is_active = true) => ({ uuid, priority, is_active, department_name: uuid });

  it('keeps the active rules, lowest priority number first, then by uuid', () => {
    const agent = agentFixture({ routing_rules: [rule('b', 5), rule('c', -1), rule('d', 3, false), rule('a', 5), rule('e', 0)] });
    expect(activeRoutingRules(agent).map((r) => r.uuid)).toEqual(['c', 'e', 'a', 'b']);
    // The agent's own list is not reordered.
    expect((agent.routing_rules as Array<{ uuid: string }>).map((r) => r.uuid)).toEqual(['b', 'c', 'd', 'a', 'e']);
  });
});
