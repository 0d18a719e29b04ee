import type { AgentJson } from '../../agents';
import { compareText, listOf, type GuardRule, type RoutingRule } from '../prompt/agent-parts';

/** Agent channel types whose conversations channel has another name (decisions-2.md §0). */
const CONVERSATION_CHANNEL: Readonly<Record<string, string>> = { phone: 'voice', web_chat: 'chat' };

/** A channel in the conversations plugin's spelling: `phone` -> `voice`, `web_chat` -> `chat`, others as they are (lower case). */
export function conversationChannel(channel: string): string {
  const name = channel.trim().toLowerCase();
  return CONVERSATION_CHANNEL[name] ?? name;
}

/**
 * The active guard rules for a conversation on `channel`: those whose
 * `selected_channels` is empty (every channel) or names the channel in either
 * spelling (`phone`/`voice`, `web_chat`/`chat`). In the agent's listed order.
 */
export function guardRulesFor(agent: AgentJson, channel: string): GuardRule[] {
  const wanted = conversationChannel(channel);
  return listOf<GuardRule>(agent, 'guard_rules').filter(
    (rule) => rule.is_active === true && (!rule.selected_channels?.length || rule.selected_channels.some((name) => conversationChannel(name) === wanted)),
  );
}

/** The active routing rules, highest priority first: the lowest `priority` number (the agents schema), then uuid. */
export function activeRoutingRules(agent: AgentJson): RoutingRule[] {
  return listOf<RoutingRule>(agent, 'routing_rules')
    .filter((rule) => rule.is_active === true)
    .sort((a, b) => a.priority - b.priority || compareText(a.uuid, b.uuid));
}
