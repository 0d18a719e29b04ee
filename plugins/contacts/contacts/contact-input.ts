import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, type FieldErrors } from '../../../core';
import type { ContactsSettings } from '../contacts-config';
import { ContactField, type Contact } from '../entities';
import type { ContactFieldType } from '../entities/contact-field.entity';
import { MEMBER_PROPERTY, TEXT_MEMBERS, normalizeMember, type TextMember } from './contact-members';
import { checkFieldValue } from './field-values';

/** A contact body as the routes receive it (validated against its schema already). */
export type ContactInput = Partial<Record<TextMember, string | null>> & {
  custom_fields?: Record<string, unknown>;
  opted_out?: boolean;
};

/** What a body changes, normalised: text members (null clears), custom fields to set and to remove, opted_out. */
export interface ContactChanges {
  text: Partial<Record<TextMember, string | null>>;
  setFields: Record<string, unknown>;
  removeFields: string[];
  optedOut?: boolean;
}

export const NEEDS_IDENTITY = 'is required when there is no email: listings and tasks find contacts by phone number or email';
export const UNKNOWN_FIELD = 'is not a contact field of this tenant (create it with POST /api/v1/contact-fields)';

/** The types of the tenant's custom fields among `keys`, in one query. */
export async function fieldTypes(em: EntityManager, keys: readonly string[]): Promise<Map<string, ContactFieldType>> {
  if (keys.length === 0) return new Map();
  const fields = await em.find(ContactField, { key: { $in: [...keys] } }, { fields: ['key', 'dataType'], disableIdentityMap: true });
  return new Map(fields.map((field) => [field.key, field.dataType]));
}

/**
 * Checks a create body (no `existing`) or a patch of `existing` and normalises it; every
 * problem comes back in one 422 with its path (`phone_number`, `custom_fields.<key>`).
 * The result must keep a phone number or an email.
 */
export async function checkContactInput(
  em: EntityManager,
  input: ContactInput,
  settings: ContactsSettings,
  existing?: Pick<Contact, 'phoneNumber' | 'email'>,
): Promise<ContactChanges> {
  const problems: FieldErrors = {};
  const changes: ContactChanges = { text: {}, setFields: {}, removeFields: [] };
  for (const member of TEXT_MEMBERS) {
    const value = input[member];
    if (value === undefined) continue;
    if (value === null) {
      changes.text[member] = null;
      continue;
    }
    const checked = normalizeMember(member, value, settings);
    if (checked.ok) changes.text[member] = checked.value;
    else problems[member] = [checked.message];
  }
  const custom = input.custom_fields ?? {};
  const types = await fieldTypes(em, Object.keys(custom));
  for (const [key, value] of Object.entries(custom)) {
    const type = types.get(key);
    if (!type) problems[`custom_fields.${key}`] = [UNKNOWN_FIELD];
    else if (value === null) changes.removeFields.push(key);
    else {
      const checked = checkFieldValue(type, value, 'json');
      if (checked.ok) changes.setFields[key] = checked.value;
      else problems[`custom_fields.${key}`] = [checked.message];
    }
  }
  if (input.opted_out !== undefined) changes.optedOut = input.opted_out;
  const phoneNumber = changes.text.phone_number !== undefined ? changes.text.phone_number : (existing?.phoneNumber ?? null);
  const email = changes.text.email !== undefined ? changes.text.email : (existing?.email ?? null);
  if (!phoneNumber && !email && !problems.phone_number && !problems.email) problems.phone_number = [NEEDS_IDENTITY];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  return changes;
}

/** Applies checked changes to a contact (new or loaded); custom fields merge. */
export function applyChanges(contact: Contact, changes: ContactChanges): void {
  for (const [member, value] of Object.entries(changes.text) as Array<[TextMember, string | null]>) {
    (contact as unknown as Record<string, string | null>)[MEMBER_PROPERTY[member]] = value;
  }
  if (Object.keys(changes.setFields).length > 0 || changes.removeFields.length > 0) {
    const merged = { ...contact.customFields, ...changes.setFields };
    for (const key of changes.removeFields) delete merged[key];
    // A new object, so the ORM sees the change of the json column.
    contact.customFields = merged;
  }
  if (changes.optedOut !== undefined) contact.optedOut = changes.optedOut;
}
