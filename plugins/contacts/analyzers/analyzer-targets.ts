import type { EntityManager } from '@mikro-orm/postgresql';
import { ContactField } from '../entities';
import type { ContactFieldType } from '../entities/contact-field.entity';

/**
 * What an analyzer id says it writes. The prefix is the kind: `b_<built-in field>`,
 * `f_<custom field key>`, `p_<pipeline stage key>`. The approval's `field` is the
 * contact member written: `company`, `custom_fields.<key>` or `pipeline_stage`.
 */

/** The contact's built-in members a `b_` analyzer may fill, with what the model should answer. */
export const BUILT_IN_FIELDS = {
  name: 'the contact’s first (given) name',
  surname: 'the contact’s family name',
  email: 'an email address of the contact',
  phone_number: 'a phone number of the contact, in international format with + and country code, e.g. +34600000000',
  timezone: 'the IANA time zone the contact lives in, e.g. Europe/Madrid',
  country_code: 'the ISO 3166-1 alpha-2 code of the contact’s country, e.g. ES',
  primary_language: 'the ISO 639-1 code of the language the contact prefers, e.g. es',
  company: 'the company or organisation the contact works for',
  city: 'the city the contact lives or works in',
  lead_source: 'how the contact came to know the company, e.g. a referral, an advert, a web search',
} as const;

export type BuiltInField = keyof typeof BUILT_IN_FIELDS;
export const BUILT_IN_FIELD_NAMES = Object.keys(BUILT_IN_FIELDS) as BuiltInField[];

/** A pipeline stage key: what `p_` is followed by. */
export const STAGE_KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export const PIPELINE_STAGE_FIELD = 'pipeline_stage';
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';

export type AnalyzerTarget =
  | { kind: 'built_in'; analyzerId: string; field: BuiltInField }
  | { kind: 'custom'; analyzerId: string; key: string; name: string; dataType: ContactFieldType; description: string }
  | { kind: 'stage'; analyzerId: string; stage: string };

/** The approval's `field` for a target: the member of the contact it writes. */
export function approvalFieldOf(target: AnalyzerTarget): string {
  if (target.kind === 'built_in') return target.field;
  if (target.kind === 'custom') return `${CUSTOM_FIELD_PREFIX}${target.key}`;
  return PIPELINE_STAGE_FIELD;
}

/**
 * What an id is wrong with, reading only its shape (not whether its custom field
 * exists); null when the shape is right. The messages are the 422's at `analyzer_id`.
 */
export function analyzerIdShapeProblem(analyzerId: string): string | null {
  const prefix = analyzerId.slice(0, 2);
  const rest = analyzerId.slice(2);
  if (prefix === 'b_') {
    return (BUILT_IN_FIELD_NAMES as string[]).includes(rest) ? null : `"${rest}" is not a built-in contact field; b_ takes one of ${BUILT_IN_FIELD_NAMES.join(', ')}`;
  }
  if (prefix === 'f_') return rest === '' ? 'f_ must be followed by the key of a contact field' : null;
  if (prefix === 'p_') return STAGE_KEY_PATTERN.test(rest) ? null : `the pipeline stage key after p_ must match ${STAGE_KEY_PATTERN.source}`;
  return 'must start with b_ (a built-in contact field), f_ (the key of a custom contact field) or p_ (a pipeline stage key)';
}

/**
 * The targets of these analyzer ids, in their order. An `f_` id whose contact field
 * does not exist (deleted since) has no target and is left out; so is an id of the
 * wrong shape. One query for the custom fields.
 */
export async function targetsOf(em: EntityManager, analyzerIds: readonly string[]): Promise<AnalyzerTarget[]> {
  const keys = analyzerIds.filter((id) => id.startsWith('f_')).map((id) => id.slice(2));
  const fields = keys.length > 0 ? await em.find(ContactField, { key: { $in: keys } }) : [];
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const targets: AnalyzerTarget[] = [];
  for (const analyzerId of analyzerIds) {
    if (analyzerIdShapeProblem(analyzerId) !== null) continue;
    const rest = analyzerId.slice(2);
    if (analyzerId.startsWith('b_')) targets.push({ kind: 'built_in', analyzerId, field: rest as BuiltInField });
    else if (analyzerId.startsWith('p_')) targets.push({ kind: 'stage', analyzerId, stage: rest });
    else {
      const field = byKey.get(rest);
      if (field) targets.push({ kind: 'custom', analyzerId, key: field.key, name: field.name, dataType: field.dataType, description: field.description });
    }
  }
  return targets;
}

/** The field an analyzer id writes, as approvals name it, from the id alone. */
export function approvalFieldOfId(analyzerId: string): string {
  const rest = analyzerId.slice(2);
  if (analyzerId.startsWith('f_')) return `${CUSTOM_FIELD_PREFIX}${rest}`;
  if (analyzerId.startsWith('p_')) return PIPELINE_STAGE_FIELD;
  return rest;
}
