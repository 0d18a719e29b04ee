import type { AgentJson } from '../../agents';
import { textSettingsGroup } from '../prompt/agent-parts';

const FENCE = /^\s*(```|~~~)/;

/**
 * A reply as the messages it is sent as (`settings.text.advanced.split_messages`).
 * Off: the text as it is, one message. On: one message per paragraph (a blank line
 * ends one), trimmed, empty ones dropped, so blank text gives none; a fenced code
 * block stays in one message even with blank lines inside it.
 */
export function splitMessages(agent: AgentJson, text: string): string[] {
  if (textSettingsGroup(agent, 'advanced').split_messages !== true) return [text];
  const parts: string[] = [];
  let current: string[] = [];
  let inFence = false;
  const flush = () => {
    const part = current.join('\n').trim();
    if (part !== '') parts.push(part);
    current = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    if (!inFence && line.trim() === '') flush();
    else current.push(line);
  }
  flush();
  return parts;
}
