import type { AgentJson } from '../../agents';
import { textSettingsGroup } from '../prompt/agent-parts';

export interface DailyLimit {
  /** Customer messages a conversation may send per local day; the next one gets `message`. */
  max: number;
  message: string;
}

export const DEFAULT_DAILY_LIMIT_MESSAGE = 'We have reached the limit of messages for today. Please write again tomorrow.';

/**
 * `settings.text.daily_limits` (decisions-2.md §1). The schema has no `enabled` flag:
 * the limit always applies (the default is 100), so this is null only when the setting
 * is missing or not a positive integer. The caller counts the conversation's customer
 * messages since `localDayStart` in the agent's zone and, past `max`, answers `message`
 * without a model call. An empty configured message gets a default one.
 */
export function dailyLimit(agent: AgentJson): DailyLimit | null {
  const limits = textSettingsGroup(agent, 'daily_limits');
  const max = limits.daily_max_messages_per_conversation;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) return null;
  const text = limits.daily_conversation_limit_exceeded_message;
  return { max, message: typeof text === 'string' && text.trim() !== '' ? text.trim() : DEFAULT_DAILY_LIMIT_MESSAGE };
}

/**
 * The customer messages since `since` as the history already read tells them, when it can:
 * a history shorter than what was asked for (`asked`) is the whole conversation, and one
 * whose oldest message is older than `since` holds all of that day. Otherwise null: the
 * caller counts in the database. Saves a statement on nearly every turn.
 */
export function customerMessagesSinceIn(history: ReadonlyArray<{ sender: string; created_at: string }>, asked: number, since: Date): number | null {
  const from = since.getTime();
  const whole = history.length < asked || (history.length > 0 && Date.parse(history[0].created_at) < from);
  if (!whole) return null;
  return history.filter((message) => message.sender === 'customer' && Date.parse(message.created_at) >= from).length;
}
