import type { ChatMessage, LlmService } from '../../../core';
import type { GuardRuleJson } from '../../agents';

type GuardRule = GuardRuleJson;

export interface GuardCheck {
  rules: GuardRule[];
  /** The customer's message and a little of what came before, for context. */
  recent: ChatMessage[];
  agentUuid: string;
  baseUrl?: string;
  signal?: AbortSignal;
}

/**
 * Whether the customer's message puts the conversation in a situation a guard rule is
 * for (decisions-2.md §1): one structured call named `guard_check` whose answer can only
 * be one of the rules' uuids or null. Runs beside the reply; the caller drops the reply
 * when a rule fires. A failed or unreadable check fires nothing: the rule set is a net,
 * and a model outage must not end conversations.
 */
export async function checkGuardRules(llm: LlmService, check: GuardCheck): Promise<GuardRule | null> {
  if (check.rules.length === 0) return null;
  const uuids = check.rules.map((rule) => rule.uuid);
  const value = (await llm.json({
    messages: [{ role: 'system', content: guardInstructions(check.rules) }, ...check.recent],
    schema: {
      type: 'object',
      properties: { rule_uuid: { anyOf: [{ type: 'string', enum: uuids }, { type: 'null' }] } },
      required: ['rule_uuid'],
      additionalProperties: false,
    },
    schemaName: 'guard_check',
    strict: true,
    temperature: 0,
    purpose: 'runtime.guard_check',
    agentUuid: check.agentUuid,
    ...(check.baseUrl ? { baseUrl: check.baseUrl } : {}),
    signal: check.signal,
  })) as { rule_uuid: string | null };
  return check.rules.find((rule) => rule.uuid === value.rule_uuid) ?? null;
}

function guardInstructions(rules: GuardRule[]): string {
  const lines = rules.map((rule) => {
    const examples = rule.example_phrases.length > 0 ? ` Examples: ${rule.example_phrases.map((phrase) => JSON.stringify(phrase)).join(', ')}.` : '';
    return `- ${rule.uuid}: ${rule.when_condition}${examples}`;
  });
  return [
    'You check one customer message of a conversation against these situations. Answer with the rule_uuid of the situation the last customer message is in, or null when it is in none of them.',
    ...lines,
  ].join('\n');
}
