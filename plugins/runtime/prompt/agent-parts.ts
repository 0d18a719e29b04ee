import type { AgentJson, GuardRuleJson, RoutingRuleJson } from '../../agents';

/**
 * The members of an agent (as the agents plugin returns it, `AgentJson`) that the
 * prompt and the turn rules read. `AgentJson` types only its uuid and name, so these
 * are read here once, defensively: a missing list is empty, a missing setting absent.
 * Webhooks and intents' webhook configuration are deliberately not part of this view.
 */

export interface OrderedText {
  uuid: string;
  content: string;
  order: number;
}

export interface ProcedureStep {
  order: number;
  description: string;
  intent_uuid: string | null;
}

export interface Procedure {
  uuid: string;
  name: string;
  description: string;
  steps: ProcedureStep[];
}

export interface TrainingRow {
  uuid: string;
  content: string;
  intent: string;
  response: string;
}

/** Only what the prompt may show of an intent: its tool name. */
export interface IntentName {
  intent_uuid: string;
  key: string;
}

/** The rules as the agents plugin types them (lower routing `priority`: higher priority). */
export type GuardRule = GuardRuleJson;
export type RoutingRule = RoutingRuleJson;

type Group = Record<string, unknown>;

const record = (value: unknown): Group => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Group) : {});

/** A list member of the agent, or an empty list. */
export function listOf<T>(agent: AgentJson, name: string): T[] {
  const value = (agent as Record<string, unknown>)[name];
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A string member of the agent, or ''. */
export function textOf(agent: AgentJson, name: string): string {
  const value = (agent as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** A group of `settings.text` (e.g. `working_hours`), or an empty object. */
export function textSettingsGroup(agent: AgentJson, group: string): Group {
  return record(record(record((agent as Record<string, unknown>).settings).text)[group]);
}

/** Only the intents' uuids and keys: the rest of an intent (its webhook) never leaves here. */
export function intentNames(agent: AgentJson): IntentName[] {
  return listOf<Group>(agent, 'intents')
    .filter((intent) => typeof intent.intent_uuid === 'string' && typeof intent.key === 'string')
    .map((intent) => ({ intent_uuid: intent.intent_uuid as string, key: intent.key as string }));
}

/** Items by `order`, then uuid: the listed order, made certain. */
export function byOrder<T extends { order: number; uuid?: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.order - b.order || compareText(a.uuid ?? '', b.uuid ?? ''));
}

/** Code-unit comparison: unlike `localeCompare`, the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
