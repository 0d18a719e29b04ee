import type { ChatMessage } from '../../../core';
import { listOf, type TrainingRow } from './agent-parts';
import type { PromptHistoryMessage, PromptInput, PromptResult } from './prompt-types';
import {
  EXAMPLES_HEADING,
  contactSection,
  guidelinesSection,
  instructionsSection,
  languageAndTimeSection,
  memorySection,
  notesSection,
  opening,
  personaSection,
  proceduresSection,
  styleSection,
  trainingExample,
} from './system-sections';
import { messageTokens } from './token-estimate';

/** History kept whole before any training example is cut: the last few exchanges matter most. */
export const RECENT_HISTORY_KEPT = 6;

const SEPARATOR = '\n\n';

type Turn = { role: 'user' | 'assistant'; content: string };

/**
 * The recorded messages the model reads again: customer and agent text (audio as its
 * transcript). Tool messages are not replayed: their calls' ids belong to turns that are
 * over, and as plain text the model would start writing tool results itself; the
 * replies that used them are in the history. Events and system messages are bookkeeping.
 */
export function replayable(history: readonly PromptHistoryMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of history) {
    if (message.message_type !== 'text' && message.message_type !== 'audio') continue;
    if (typeof message.content !== 'string' || message.content.trim() === '') continue;
    if (message.sender === 'customer') turns.push({ role: 'user', content: message.content });
    else if (message.sender === 'agent') turns.push({ role: 'assistant', content: message.content });
  }
  return turns;
}

/**
 * The messages of one turn's model call: one system message from the agent (see
 * docs/agent-prompt.md for the template), then the conversation. Pure: the same input
 * gives byte-identical messages. Over `budgetTokens` it cuts, oldest first: history
 * before the last RECENT_HISTORY_KEPT messages, then training examples, then the rest
 * of the history but the newest customer message. The persona, instructions,
 * guidelines, notes, procedures, memory and contact are never cut, so a prompt may
 * still exceed the budget; `estimatedTokens` says by how much.
 */
export function buildPrompt(input: PromptInput): PromptResult {
  const { agent } = input;
  const head = [opening(agent), personaSection(agent), instructionsSection(agent), languageAndTimeSection(agent, input.channel, input.now), styleSection(agent)];
  head.push(guidelinesSection(agent), notesSection(agent), proceduresSection(agent));
  const before = head.filter((part) => part !== '').join(SEPARATOR);
  const after = [memorySection(agent, input.memory), contactSection(input.contact)]
    .filter((part) => part !== '')
    .map((part) => SEPARATOR + part)
    .join('');
  const examples = listOf<TrainingRow>(agent, 'training')
    .filter((row) => typeof row.content === 'string' && row.content.trim() !== '')
    .map((row) => SEPARATOR + trainingExample(row));
  const turns = replayable(input.history);

  // Lengths add up exactly (system = before + [heading + examples] + after), so the cut
  // is arithmetic on counts and the system message is joined once, at the end.
  const headingChars = SEPARATOR.length + EXAMPLES_HEADING.length;
  let exampleChars = examples.reduce((sum, example) => sum + example.length, 0);
  let firstExample = 0;
  const systemTokens = () => messageTokens(before.length + after.length + (firstExample < examples.length ? headingChars + exampleChars : 0));
  const turnTokens = turns.map((turn) => messageTokens(turn.content.length));
  let historyTokens = turnTokens.reduce((sum, tokens) => sum + tokens, 0);
  const kept = turns.map(() => true);
  const newestCustomer = turns.map((turn) => turn.role).lastIndexOf('user');
  const over = () => systemTokens() + historyTokens > input.budgetTokens;

  const cutHistory = (end: number) => {
    for (let index = 0; index < end && over(); index++) {
      if (!kept[index] || index === newestCustomer) continue;
      kept[index] = false;
      historyTokens -= turnTokens[index];
    }
  };
  cutHistory(turns.length - RECENT_HISTORY_KEPT);
  while (firstExample < examples.length && over()) exampleChars -= examples[firstExample++].length;
  cutHistory(turns.length);

  const trainingBlock = firstExample < examples.length ? SEPARATOR + EXAMPLES_HEADING + examples.slice(firstExample).join('') : '';
  const messages: ChatMessage[] = [{ role: 'system', content: before + trainingBlock + after }];
  turns.forEach((turn, index) => {
    if (kept[index]) messages.push({ role: turn.role, content: turn.content });
  });
  return {
    messages,
    estimatedTokens: systemTokens() + historyTokens,
    dropped: { history: kept.filter((keep) => !keep).length, training: firstExample },
  };
}
