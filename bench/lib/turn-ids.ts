import type { FakeLlmRequest } from '../../core/testing/fake-llm-server';

/**
 * How the scripted benches tell turns apart: each customer message carries its turn's id
 * (`[turn <id>]`), and the scripted model's reply names it back (`Ref:<id>`), so every
 * model request and every reply that reaches a provider is set against its turn.
 */
export const TURN_ID = /\[turn ([A-Za-z0-9_-]+)\]/;
export const replyText = (turnId: string) => `Ref:${turnId}`;

/** The turn id in the last user message of a chat completion request (null: not a turn's, e.g. a summary). */
export function turnIdOf(request: FakeLlmRequest): string | null {
  const messages: any[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role !== 'user') continue;
    const content = messages[index].content;
    return TURN_ID.exec(typeof content === 'string' ? content : JSON.stringify(content))?.[1] ?? null;
  }
  return null;
}
