// The prompt of one agent turn: pure functions of the agent, the conversation and the clock.
export { buildPrompt, replayable, RECENT_HISTORY_KEPT } from './build-prompt';
export { estimateTokens, messageTokens, CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS } from './token-estimate';
export type { PromptInput, PromptResult, PromptHistoryMessage, PromptMemory, PromptContact } from './prompt-types';
export type { GuardRule, RoutingRule, OrderedText, Procedure, ProcedureStep, TrainingRow } from './agent-parts';
