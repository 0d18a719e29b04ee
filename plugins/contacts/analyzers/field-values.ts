import type { ContactsSettings } from '../contacts-config';
import { MEMBER_PROPERTY, normalizeMember } from '../contacts/contact-members';
import { checkFieldValue } from '../contacts/field-values';
import type { Contact } from '../entities';
import type { ContactFieldType } from '../entities/contact-field.entity';
import { CUSTOM_FIELD_PREFIX, STAGE_KEY_PATTERN, type BuiltInField } from './analyzer-targets';

/**
 * Reading, checking and writing the contact members approvals are about. A value is
 * checked twice, with the contact routes' own checks (so an approval writes exactly
 * what the API would): when it is proposed, so it is stored normalized (`+34 600 00
 * 00 00` as `+34600000000`, `"42"` as 42 for a number field) and compared with the
 * current value in that form; and when it is written (a value the check refused is
 * still proposed as said, for a person to see; approving it is then a 422).
 */

export type ValueCheck = { ok: true; value: unknown } | { ok: false; problem: string };

const ok = (value: unknown): ValueCheck => ({ ok: true, value });
const refused = (problem: string): ValueCheck => ({ ok: false, problem });

/** The custom field key of an approval field (`custom_fields.<key>`); null for the other fields. */
export const customKeyOf = (field: string): string | null => (field.startsWith(CUSTOM_FIELD_PREFIX) ? field.slice(CUSTOM_FIELD_PREFIX.length) : null);

const propertyOf = (field: string): keyof Contact | undefined => MEMBER_PROPERTY[field as keyof typeof MEMBER_PROPERTY];

/** The contact's value of an approval field, as the API shows it (null when unset). */
export function currentValueOf(contact: Contact, field: string): unknown {
  const key = customKeyOf(field);
  if (key !== null) return contact.customFields[key] ?? null;
  const property = propertyOf(field);
  return property ? (contact[property] ?? null) : null;
}

/** Writes a checked value into the contact (flushed with the transaction). */
export function writeValue(contact: Contact, field: string, value: unknown): void {
  const key = customKeyOf(field);
  // A new object, so the change of the json column is seen for certain.
  if (key !== null) contact.customFields = { ...contact.customFields, [key]: value };
  else (contact as unknown as Record<string, unknown>)[propertyOf(field)!] = value;
}

/** Whether two values of a field are the same (values are JSON). */
export const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A built-in member's value, normalized as the contacts API stores it. */
export function checkBuiltIn(field: BuiltInField, raw: unknown, settings: ContactsSettings): ValueCheck {
  if (typeof raw !== 'string') return refused('must be a string');
  const checked = normalizeMember(field, raw, settings);
  if (!checked.ok) return refused(checked.message);
  return checked.value === null ? refused('must not be empty') : ok(checked.value);
}

/**
 * A custom field's value, by the field's type. The model answers text, so it is read
 * as a listing's cell is (`"42"` is a number, `"true"` a boolean).
 */
export function checkCustom(dataType: ContactFieldType, raw: unknown): ValueCheck {
  if (raw === null || raw === undefined) return refused('must have a value');
  const checked = checkFieldValue(dataType, raw, 'listing');
  return checked.ok ? ok(checked.value) : refused(checked.message);
}

/** A pipeline stage key. */
export const checkStage = (raw: unknown): ValueCheck =>
  typeof raw === 'string' && STAGE_KEY_PATTERN.test(raw) ? ok(raw) : refused(`is not a pipeline stage key (${STAGE_KEY_PATTERN.source})`);
