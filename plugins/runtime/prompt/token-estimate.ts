import type { ChatMessage } from '../../../core';

/**
 * A tokenizer-free estimate, the same for every model: about four characters (UTF-16
 * code units) a token, plus a few tokens a message for its role and framing. It runs
 * on every turn, so it must be cheap; it errs a little high on English prose.
 */
export const CHARS_PER_TOKEN = 4;
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens of one message whose content has `chars` characters. */
export function messageTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimated tokens of the messages (tool calls of assistant messages counted as their JSON). */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) {
    let chars = message.content?.length ?? 0;
    if (message.role === 'assistant' && message.toolCalls) chars += JSON.stringify(message.toolCalls).length;
    total += messageTokens(chars);
  }
  return total;
}
