import type { ConfigValues } from '../../core';

/** The runtime plugin's config slice (convict); the README's runtime settings table lists each. */
export const runtimeConfig = {
  maxToolRounds: {
    doc: 'Most model rounds that call tools in one turn; the round after the last answers without tools',
    format: 'nat',
    default: 5,
    env: 'RUNTIME_MAX_TOOL_ROUNDS',
  },
  promptBudgetTokens: {
    doc: 'Token budget of the prompt (estimated): history and training examples are cut oldest first to fit, guidelines and rules never',
    format: 'nat',
    default: 12_000,
    env: 'RUNTIME_PROMPT_BUDGET_TOKENS',
  },
  historyMessages: {
    doc: 'Most earlier messages of the conversation read for the prompt (before the budget cuts)',
    format: 'nat',
    default: 200,
    env: 'RUNTIME_HISTORY_MESSAGES',
  },
  intentTimeoutMs: {
    doc: 'Timeout of one intent webhook call (milliseconds)',
    format: 'nat',
    default: 10_000,
    env: 'RUNTIME_INTENT_TIMEOUT_MS',
  },
  turnWaitMs: {
    doc: 'How long a turn waits for another turn of the same conversation to finish before answering 409 (milliseconds)',
    format: 'nat',
    default: 60_000,
    env: 'RUNTIME_TURN_WAIT_MS',
  },
  turnLeaseMs: {
    doc: 'How long a turn holds its conversation before another process may take it over, should the first die (milliseconds)',
    format: 'nat',
    default: 180_000,
    env: 'RUNTIME_TURN_LEASE_MS',
  },
};

/** The slice as validated at boot. */
export type RuntimeSettings = ConfigValues<typeof runtimeConfig>;
