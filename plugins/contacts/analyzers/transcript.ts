import type { MessageJson } from '../../conversations';

/** Longest transcript sent to the model; a longer session keeps its beginning and its end. */
export const MAX_TRANSCRIPT_CHARS = 60_000;

/**
 * The session as the model reads it: one line per message, `[<created_at>] <sender>:
 * <content>`, oldest first. Line breaks inside a message become spaces, so a message
 * cannot pass for several (or for another sender's).
 */
export function transcriptOf(messages: readonly Pick<MessageJson, 'created_at' | 'sender' | 'content'>[], maxChars = MAX_TRANSCRIPT_CHARS): string {
  const text = messages.map((message) => `[${message.created_at}] ${message.sender}: ${message.content.replace(/\s*[\r\n]+\s*/g, ' ')}`).join('\n');
  if (text.length <= maxChars) return text;
  // What the customer came for is at the start, what they settled on at the end.
  const marker = (omitted: number) => `\n[... ${omitted} characters omitted ...]\n`;
  // The marker with the largest possible count bounds the real one's length.
  const half = Math.max(0, Math.floor((maxChars - marker(text.length).length) / 2));
  return `${text.slice(0, half)}${marker(text.length - 2 * half)}${text.slice(text.length - half)}`;
}
