import type { Static } from '../../core';
import type { AgentJson } from './agent-reader';
import type { AgentStatus } from './agent-status';
import type { GuardRule } from './schemas/guard-rule';
import type { Intent } from './schemas/intent';
import type { RoutingRule } from './schemas/routing-rule';
import type { TextSettings } from './schemas/text-settings';
import type { VoiceSettings } from './schemas/voice-settings';

export type IntentJson = Static<typeof Intent>;
export type RoutingRuleJson = Static<typeof RoutingRule>;
export type GuardRuleJson = Static<typeof GuardRule>;

/**
 * The members of an agent's JSON that code acting for the agent reads (the runtime),
 * typed. `AgentJson` stays open because settings slots of other plugins join it.
 */
export type AgentView = AgentJson & {
  status: AgentStatus;
  language: string;
  timezone: string;
  custom_llm_url: string | null;
  settings: { text: TextSettings; voice: VoiceSettings } & Record<string, unknown>;
  intents: IntentJson[];
  routing_rules: RoutingRuleJson[];
  guard_rules: GuardRuleJson[];
};
