import type { ProcedureStep } from './entities';

/**
 * Entity fields from the items clients send, shared by `PUT /agents/{uuid}` (which
 * replaces whole lists) and the sub-resource routes (which add or change one item).
 */

const camel = (member: string) => member.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The members of a partial body that were sent (for a PATCH of a plain item). */
export function definedOnly(body: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(members.filter((member) => body[member] !== undefined).map((member) => [member, body[member]]));
}

/** `{destination_type: 'x'}` -> `{destinationType: 'x'}` for the members present, skipping read-only ones. */
export function camelFields(item: Record<string, unknown>, skip: readonly string[] = ['uuid']): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(item)) if (value !== undefined && !skip.includes(member)) fields[camel(member)] = value;
  return fields;
}

export interface OrderedTextItem {
  content: string;
  order?: number;
}

/** The largest `order` and `priority` the schemas accept. */
export const MAX_POSITION = 1_000_000;

/** The position after `after`, kept within what the API accepts (equal positions sort by creation). */
export const nextPosition = (after: number) => Math.min(after + 1, MAX_POSITION);

/** A guideline or note; without `order` it goes after `after`. */
export const orderedTextFields = (item: OrderedTextItem, after: number) => ({ content: item.content, order: item.order ?? nextPosition(after) });

export interface StepItem {
  order: number;
  description: string;
  intent_uuid?: string | null;
}

/** Steps are kept sorted by `order` (stable for equal orders), with `intent_uuid` always present. */
export const sortedSteps = (steps: readonly StepItem[]): ProcedureStep[] =>
  steps.map((step) => ({ order: step.order, description: step.description, intent_uuid: step.intent_uuid ?? null })).sort((a, b) => a.order - b.order);

export interface ProcedureItem {
  name: string;
  description?: string;
  steps?: StepItem[];
}

export const procedureFields = (item: ProcedureItem) => ({ name: item.name, description: item.description ?? '', steps: sortedSteps(item.steps ?? []) });

export const trainingFields = (item: { content: string; intent?: string; response?: string }) => ({
  content: item.content,
  intent: item.intent ?? '',
  response: item.response ?? '',
});

/** The named members of a row as the API spells them (`destinationType` -> `destination_type`). */
export function snakeView(row: object, members: readonly string[]): Record<string, any> {
  return Object.fromEntries(members.map((member) => [member, (row as Record<string, unknown>)[camel(member)]]));
}

/**
 * Drops the agent reference of a rule that no longer forwards to an agent (another
 * `destination_type`, or a guard that ends the conversation): a stale reference would
 * keep that agent from being deleted. `destination` is plain text and stays.
 */
export function settleDestination<T extends Record<string, any>>(rule: T): T {
  const forwardsToAgent = rule.destinationType === 'agent' && rule.thenAction !== 'end_conversation';
  const settled: Record<string, unknown> = rule;
  if (!forwardsToAgent) settled.destinationAgentUuid = null;
  return rule;
}
