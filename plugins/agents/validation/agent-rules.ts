import type { EntityManager } from '@mikro-orm/postgresql';
import { isLanguageCode } from '../languages/language-catalog';
import { FieldErrorList, join } from './field-errors';
import { isTimeZone } from './time-zones';

/**
 * The rules of the spec a schema cannot state: catalog membership, conditional
 * members of rules, and references to other rows of this tenant. Each adds to one
 * FieldErrorList so a request hears about all its problems at once.
 */

const LANGUAGE_MESSAGE = 'must be a language code from GET /api/v1/language';

export function checkLanguage(value: unknown, path: string, errors: FieldErrorList): void {
  if (typeof value === 'string' && !isLanguageCode(value)) errors.add(path, LANGUAGE_MESSAGE);
}

export function checkTimeZone(value: unknown, path: string, errors: FieldErrorList): void {
  if (typeof value === 'string' && !isTimeZone(value)) errors.add(path, 'must be an IANA time zone name, e.g. Europe/Madrid');
}

/** Catalog members of an agent body (`POST`/`PUT /agents`), at their paths. */
export function checkAgentCatalogs(body: Record<string, any>, errors: FieldErrorList): void {
  checkLanguage(body.language, 'language', errors);
  checkTimeZone(body.timezone, 'timezone', errors);
  checkLanguage(body.settings?.voice?.voice_profile?.language, 'settings.voice.voice_profile.language', errors);
  checkTimeZone(body.settings?.text?.working_hours?.timezone, 'settings.text.working_hours.timezone', errors);
}

/** Ranges given as a min and a max member must not be upside down (checked on the effective settings). */
export function checkTextRanges(text: Record<string, any>, errors: FieldErrorList): void {
  const pairs: Array<[string, string, string]> = [
    ['timing_and_delay', 'typing_speed_wpm_min', 'typing_speed_wpm_max'],
    ['timing_and_delay', 'delay_jitter_min', 'delay_jitter_max'],
    ['message_behavior.second_message_behavior', 'delay_min', 'delay_max'],
    ['message_behavior.follow_up_behavior', 'delay_min', 'delay_max'],
  ];
  for (const [group, min, max] of pairs) {
    const values = group.split('.').reduce((node: any, key) => node?.[key], text);
    if (values && values[min] > values[max]) errors.add(`settings.text.${group}.${max}`, `must not be less than ${min}`);
  }
}

export interface RuleDestination {
  destination_type?: string;
  destination?: string;
  destination_agent_uuid?: string | null;
}

/** The destination a forward needs: an agent for `destination_type=agent`, else `destination`. */
function checkDestination(rule: RuleDestination, path: string, errors: FieldErrorList, reason: string): void {
  if (!rule.destination_type) {
    errors.add(join(path, 'destination_type'), `is required ${reason}`);
  } else if (rule.destination_type === 'agent') {
    if (!rule.destination_agent_uuid) errors.add(join(path, 'destination_agent_uuid'), 'is required when destination_type is agent');
  } else if (!rule.destination) {
    errors.add(join(path, 'destination'), `is required ${reason}`);
  }
}

/** A guard rule as it will be stored (after a PATCH, the merged rule). */
export function checkGuardRule(rule: RuleDestination & { then_action?: string; say_before_end?: string }, path: string, errors: FieldErrorList): void {
  if (rule.then_action === 'forward') checkDestination(rule, path, errors, 'when then_action is forward');
  if (rule.then_action === 'end_conversation' && !rule.say_before_end?.trim()) {
    errors.add(join(path, 'say_before_end'), 'is required when then_action is end_conversation');
  }
}

export function checkRoutingRule(rule: RuleDestination, path: string, errors: FieldErrorList): void {
  checkDestination(rule, path, errors, 'for a routing rule');
}

export interface Reference {
  path: string;
  uuid: string;
}

/** Each `destination_agent_uuid` must be another agent of this tenant (one query for all). */
export async function checkAgentReferences(
  em: EntityManager,
  tenantUuid: string,
  self: string | null,
  references: readonly Reference[],
  errors: FieldErrorList,
): Promise<void> {
  if (references.length === 0) return;
  const known = await existing(em, `select uuid from agents where tenant_uuid = ? and uuid in (?)`, [tenantUuid, references.map((r) => r.uuid)]);
  for (const { path, uuid } of references) {
    if (uuid === self) errors.add(path, 'must be another agent, not this one');
    else if (!known.has(uuid)) errors.add(path, 'must be an agent of this tenant');
  }
}

/** Each step's `intent_uuid` must be an intent of this agent (one query for all). */
export async function checkStepIntents(em: EntityManager, agentUuid: string | null, references: readonly Reference[], errors: FieldErrorList): Promise<void> {
  if (references.length === 0) return;
  const known = agentUuid
    ? await existing(em, `select uuid from agent_intents where agent_uuid = ? and uuid in (?)`, [agentUuid, references.map((r) => r.uuid)])
    : new Set<string>();
  for (const { path, uuid } of references) if (!known.has(uuid)) errors.add(path, 'must be an intent of this agent');
}

export function checkWebhookEvents(events: readonly string[] | undefined, path: string, catalog: ReadonlySet<string>, errors: FieldErrorList): void {
  events?.forEach((event, index) => {
    if (!catalog.has(event)) errors.add(`${path}.${index}`, 'must be an event name from GET /api/v1/agent-webhook-events');
  });
}

/** The intent references of one procedure's steps, with their paths under `prefix` (e.g. `procedures.2`). */
export function stepReferences(steps: ReadonlyArray<{ intent_uuid?: string | null }> | undefined, prefix: string): Reference[] {
  return (steps ?? []).flatMap((step, index) => (step.intent_uuid ? [{ path: join(prefix, `steps.${index}.intent_uuid`), uuid: step.intent_uuid }] : []));
}

async function existing(em: EntityManager, sql: string, params: unknown[]): Promise<Set<string>> {
  const rows: Array<{ uuid: string }> = await em.getConnection().execute(sql, params, 'all', em.getTransactionContext());
  return new Set(rows.map((row) => row.uuid));
}

/** Keys of a list (an intent's parameters) must differ: a tool schema cannot have two arguments of one name. */
export function checkUniqueKeys(items: ReadonlyArray<{ key: string }> | undefined, path: string, errors: FieldErrorList): void {
  const seen = new Set<string>();
  items?.forEach((item, index) => {
    if (seen.has(item.key)) errors.add(`${path}.${index}.key`, 'is already used by another item of this list');
    seen.add(item.key);
  });
}
