import type { Contact } from '../entities';
import type { ContactsSettings } from '../contacts-config';
import { accept, refuse, type Checked } from './checked';
import { countryCode } from './country-codes';
import { normalizePhoneNumber } from './phone-number';
import { ianaTimeZone } from './time-zone';

/** The built-in members of the spec's listing contact item, all strings. */
export const LISTING_MEMBERS = [
  'name',
  'surname',
  'phone_number',
  'email',
  'timezone',
  'country_code',
  'primary_language',
  'company',
  'city',
  'lead_source',
] as const;
export type ListingMember = (typeof LISTING_MEMBERS)[number];

/** The text members a contact has: the listing members and the pipeline stage. */
export const TEXT_MEMBERS = [...LISTING_MEMBERS, 'pipeline_stage'] as const;
export type TextMember = (typeof TEXT_MEMBERS)[number];

/**
 * Names a custom field can never take: every member of a contact, so that a member of
 * a listing item is either built in or a custom field, never both.
 */
export const CONTACT_MEMBER_NAMES: ReadonlySet<string> = new Set([...TEXT_MEMBERS, 'uuid', 'custom_fields', 'opted_out', 'created_at', 'updated_at']);

/** The entity property of each text member. */
export const MEMBER_PROPERTY = {
  name: 'name',
  surname: 'surname',
  phone_number: 'phoneNumber',
  email: 'email',
  timezone: 'timezone',
  country_code: 'countryCode',
  primary_language: 'primaryLanguage',
  company: 'company',
  city: 'city',
  lead_source: 'leadSource',
  pipeline_stage: 'pipelineStage',
} as const satisfies Record<TextMember, keyof Contact>;

export const EMAIL_MAX = 254;
export const LANGUAGE_MAX = 35;
export const TEXT_MAX = 200;

// Deliberately loose: one @, no spaces, a dot in the domain. Whether a mailbox exists only sending can tell.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(text: string): Checked<string> {
  const email = text.trim().toLowerCase();
  if (email.length > EMAIL_MAX || !EMAIL.test(email)) return refuse('is not a valid email address');
  return accept(email);
}

/**
 * A text member's value as stored: trimmed, an empty string read as null (no value),
 * phone numbers as E.164, emails lower-cased, time zones and country codes checked.
 */
export function normalizeMember(member: TextMember, text: string, settings: ContactsSettings): Checked<string | null> {
  const trimmed = text.trim();
  if (trimmed === '') return accept(null);
  switch (member) {
    case 'phone_number':
      return normalizePhoneNumber(trimmed, settings.defaultCountry);
    case 'email':
      return normalizeEmail(trimmed);
    case 'timezone': {
      const zone = ianaTimeZone(trimmed);
      return zone ? accept(zone) : refuse('is not an IANA time zone (e.g. Europe/Madrid)');
    }
    case 'country_code': {
      const code = countryCode(trimmed);
      return code ? accept(code) : refuse('is not an ISO 3166-1 alpha-2 country code (e.g. ES)');
    }
    case 'primary_language':
      return trimmed.length > LANGUAGE_MAX ? refuse(`must be at most ${LANGUAGE_MAX} characters`) : accept(trimmed);
    default:
      return trimmed.length > TEXT_MAX ? refuse(`must be at most ${TEXT_MAX} characters`) : accept(trimmed);
  }
}
