import type { AgentJson } from '../../agents';
import { languages } from '../../agents';
import { formatLocalDate, formatLocalTime, zoneOrUtc } from '../turn-rules/local-time';
import { byOrder, intentNames, listOf, textOf, textSettingsGroup, type OrderedText, type Procedure, type TrainingRow } from './agent-parts';
import type { PromptContact, PromptMemory } from './prompt-types';

/**
 * The sections of the system message, each a pure function of its input. The order
 * and wording are documented in docs/agent-prompt.md: change both together.
 */

/** Persona members in the agents schema's order, with the label the model reads. `custom_prompt` has a section of its own. */
export const PERSONA_LABELS: ReadonlyArray<readonly [member: string, label: string]> = [
  ['description', 'Description'],
  ['company_name', 'Company'],
  ['role', 'Role'],
  ['objective', 'Objective'],
  ['tone', 'Tone'],
  ['behavior_guidelines', 'Behavior'],
  ['company_service', "Company's services"],
  ['topic', 'Topic'],
  ['length_detail', 'Length and detail of replies'],
  ['interest_of_product', 'Interest in the product'],
  ['negative_response', 'When the customer is not interested'],
  ['recommendations', 'Recommendations'],
];

const filled = (text: string) => text.trim() !== '';

/** Section with a heading, or '' when it has no lines. */
const section = (heading: string, lines: string[]) => (lines.length === 0 ? '' : [`# ${heading}`, ...lines].join('\n'));

export function opening(agent: AgentJson): string {
  return `You are ${agent.name.trim() || 'an assistant'}, an AI agent talking with a customer. Follow the sections below.`;
}

export function personaSection(agent: AgentJson): string {
  const lines = PERSONA_LABELS.filter(([member]) => filled(textOf(agent, member))).map(([member, label]) => `${label}: ${textOf(agent, member).trim()}`);
  return section('Who you are', lines);
}

export function instructionsSection(agent: AgentJson): string {
  const custom = textOf(agent, 'custom_prompt').trim();
  return section('Instructions', custom === '' ? [] : [custom]);
}

export function languageAndTimeSection(agent: AgentJson, channel: string, now: Date): string {
  const code = textOf(agent, 'language');
  const language = languages.find((entry) => entry.code === code);
  const zone = zoneOrUtc(textOf(agent, 'timezone'));
  const lines: string[] = [];
  if (filled(code)) lines.push(`Reply in ${language ? `${language.name} (${code})` : code}.`);
  lines.push(`Time zone: ${zone}. Current local time: ${formatLocalTime(zone, now)}.`);
  if (filled(channel)) lines.push(`Channel: ${channel}.`);
  return section('Language and time', lines);
}

/** What the text settings say about the style of a reply; timing and typing are for channel adapters, not the model. */
export function styleSection(agent: AgentJson): string {
  const personality = textSettingsGroup(agent, 'personality');
  const confidence = textSettingsGroup(agent, 'confidence_controls');
  const advanced = textSettingsGroup(agent, 'advanced');
  const lines: string[] = [];
  const label = (value: unknown, name: string) => {
    if (typeof value === 'string' && filled(value)) lines.push(`- ${name}: ${value.trim()}.`);
  };
  label(personality.emoji_usage, 'Emoji usage');
  label(personality.energy_level, 'Energy');
  label(personality.empathy_level, 'Empathy');
  if (personality.use_response_variations === true) lines.push('- Vary your wording from reply to reply.');
  if (personality.use_punctuation_variation === true) lines.push('- Vary punctuation naturally, as people do in chat.');
  if (personality.use_filler_words === true) lines.push('- Use an occasional filler word to sound natural.');
  if (personality.enable_small_talk === true) lines.push('- Small talk is fine when the customer starts it.');
  if (personality.enable_small_talk === false) lines.push('- No small talk: keep to the topic.');
  if (typeof confidence.min_confidence_threshold === 'number') {
    const percent = Math.round(confidence.min_confidence_threshold * 100);
    lines.push(
      confidence.ask_clarifying_questions === false
        ? `- When you are less than ${percent}% sure what the customer means, say what you are unsure about instead of guessing.`
        : `- When you are less than ${percent}% sure what the customer means, ask a clarifying question instead of guessing.`,
    );
  }
  if (advanced.split_messages === true) lines.push('- Your reply is sent as separate messages at blank lines: put a blank line between messages.');
  return section('Style', lines);
}

export function guidelinesSection(agent: AgentJson): string {
  return section('Guidelines', byOrder(listOf<OrderedText>(agent, 'guidelines')).map((item, index) => `${index + 1}. ${item.content.trim()}`));
}

export function notesSection(agent: AgentJson): string {
  return section('Notes', byOrder(listOf<OrderedText>(agent, 'notes')).map((item) => `- ${item.content.trim()}`));
}

/** Procedures in the listed order, steps in `order`; a step's intent is named by its tool. */
export function proceduresSection(agent: AgentJson): string {
  const tools = new Map(intentNames(agent).map((intent) => [intent.intent_uuid, intent.key]));
  const blocks = listOf<Procedure>(agent, 'procedures').map((procedure) => {
    const lines = [`## ${procedure.name.trim()}`];
    if (filled(procedure.description ?? '')) lines.push(procedure.description.trim());
    byOrder(procedure.steps ?? []).forEach((step, index) => {
      const tool = step.intent_uuid ? tools.get(step.intent_uuid) : undefined;
      lines.push(`${index + 1}. ${step.description.trim()}${tool ? ` (call the tool \`${tool}\`)` : ''}`);
    });
    return lines.join('\n');
  });
  return blocks.length === 0 ? '' : ['# Procedures', ...blocks].join('\n\n');
}

export const EXAMPLES_HEADING = '# Examples\nHow to answer what customers say (examples, not a script):';

export function trainingExample(row: TrainingRow): string {
  const lines = [`Customer: ${row.content.trim()}`];
  if (filled(row.intent ?? '')) lines.push(`Intent: ${row.intent.trim()}`);
  if (filled(row.response ?? '')) lines.push(`You: ${row.response.trim()}`);
  return lines.join('\n');
}

/** Earlier conversations' summaries, oldest first; left out when the agent turns memory-based context off. */
export function memorySection(agent: AgentJson, memory: readonly PromptMemory[]): string {
  if (textSettingsGroup(agent, 'advanced').use_memory_based_context === false) return '';
  const zone = zoneOrUtc(textOf(agent, 'timezone'));
  const entries = memory
    .map((entry, index) => ({ entry, index, time: Date.parse(entry.created_at) }))
    .sort((a, b) => (a.time || 0) - (b.time || 0) || a.index - b.index)
    .map(({ entry, time }) => {
      const when = Number.isNaN(time) ? entry.created_at : formatLocalDate(zone, new Date(time));
      const lines = [`- ${when}: ${entry.summary.trim()}`];
      for (const [key, value] of Object.entries(entry.fields ?? {})) {
        if (value === null || value === undefined || value === '') continue;
        lines.push(`  ${key}: ${typeof value === 'string' ? value.trim() : JSON.stringify(value)}`);
      }
      return lines.join('\n');
    });
  return entries.length === 0 ? '' : ['# What you remember about this contact', 'From earlier conversations, oldest first:', ...entries].join('\n');
}

export function contactSection(contact: PromptContact | null): string {
  if (!contact) return '';
  const lines: string[] = [];
  if (filled(contact.name ?? '')) lines.push(`Name: ${contact.name!.trim()}`);
  if (filled(contact.phone_number ?? '')) lines.push(`Phone: ${contact.phone_number!.trim()}`);
  if (filled(contact.email ?? '')) lines.push(`Email: ${contact.email!.trim()}`);
  return section('The contact', lines);
}
