import type { FieldErrors } from '../../../core';
import type { ContactItem } from '../contact-directory';
import type { ContactsSettings } from '../contacts-config';
import { NEEDS_IDENTITY } from './contact-input';
import { CONTACT_MEMBER_NAMES, LISTING_MEMBERS, normalizeMember, type ListingMember } from './contact-members';
import { fieldKeyProblem } from './field-keys';

/** A listing contact item read and normalised, before it meets the database. */
export interface ParsedItem {
  /** Problems by member (paths relative to the item); the item is skipped when there are any. */
  errors: FieldErrors;
  /** Built-in members given, normalised (`phone_number` as E.164, `email` lower-cased, ...). */
  text: Partial<Record<ListingMember, string>>;
  /** Custom field values by key, not yet checked against their fields' types. */
  custom: Record<string, unknown>;
}

const LISTING: ReadonlySet<string> = new Set(LISTING_MEMBERS);

/** Sets an item's error, even at a member named `__proto__` (which plain assignment would take for the prototype). */
const setError = (parsed: ParsedItem, member: string, message: string) =>
  Object.defineProperty(parsed.errors, member, { value: [message], enumerable: true, writable: true, configurable: true });

const isAbsent = (value: unknown) => value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/**
 * Reads one item of the spec's listing contact item shape: the built-in members are
 * strings; any other member is a custom field, named by a field key. A member that is
 * null or empty counts as not given: an upsert adds and changes values, it never clears
 * them (an export's empty cell must not wipe what a contact has). Other members of a
 * contact (`opted_out`, `pipeline_stage`, ...) are not listing members and are refused.
 */
export function parseListingItem(item: ContactItem, settings: ContactsSettings): ParsedItem {
  const parsed: ParsedItem = { errors: {}, text: {}, custom: {} };
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    setError(parsed, '', 'must be an object of contact members');
    return parsed;
  }
  for (const [member, value] of Object.entries(item)) {
    if (LISTING.has(member)) {
      if (isAbsent(value)) continue;
      if (typeof value !== 'string') {
        setError(parsed, member, 'must be a string');
        continue;
      }
      const checked = normalizeMember(member as ListingMember, value, settings);
      if (!checked.ok) setError(parsed, member, checked.message);
      else if (checked.value !== null) parsed.text[member as ListingMember] = checked.value;
    } else if (CONTACT_MEMBER_NAMES.has(member)) {
      setError(parsed, member, 'is not a listing contact member (change it with PATCH /api/v1/contacts/{uuid})');
    } else {
      const keyProblem = fieldKeyProblem(member);
      if (keyProblem) setError(parsed, member, `is not a built-in member, so it names a custom field, whose key ${keyProblem}`);
      else if (!isAbsent(value)) parsed.custom[member] = value;
    }
  }
  if (!parsed.text.phone_number && !parsed.text.email && !parsed.errors.phone_number && !parsed.errors.email) parsed.errors.phone_number = [NEEDS_IDENTITY];
  return parsed;
}

export const hasErrors = (parsed: ParsedItem) => Object.keys(parsed.errors).length > 0;
