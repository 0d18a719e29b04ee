import type { MessageJson } from '../../conversations';

/**
 * The session as the model reads it: one line per message, `[<created_at>] <sender>:
 * <content>`, oldest first. Line breaks inside a message become spaces, so a message
 * cannot pass for several (or for another sender's).
 */
export function transcriptOf(messages: readonly Pick<MessageJson, 'created_at' | 'sender' | 'content'>[], maxChars: number): string {
  const text = messages.map((message) => `[${message.created_at}] ${message.sender}: ${message.content.replace(/\s*[\r\n]+\s*/g, ' ')}`).join('\n');
  return fitTranscript(text, maxChars);
}

const marker = (omitted: number) => `\n[... ${omitted} characters omitted ...]\n`;

/**
 * At most `maxChars`: a longer transcript keeps its beginning (what the customer came
 * for) and its end (how it ended), cut at line breaks where one is near, with a marker
 * saying how much was left out in between.
 */
export function fitTranscript(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // The marker's length with the largest possible count bounds the real one.
  const budget = maxChars - marker(text.length).length;
  if (budget <= 0) return text.slice(0, maxChars);
  let head = text.slice(0, Math.ceil(budget / 2));
  let tail = text.slice(text.length - Math.floor(budget / 2));
  const headBreak = head.lastIndexOf('\n');
  if (headBreak > head.length / 2) head = head.slice(0, headBreak);
  const tailBreak = tail.indexOf('\n');
  if (tailBreak >= 0 && tailBreak < tail.length / 2) tail = tail.slice(tailBreak + 1);
  return `${head}${marker(text.length - head.length - tail.length)}${tail}`;
}
