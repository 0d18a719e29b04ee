import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { accept, refuse, type Checked } from './checked';

// Digits and the separators people write numbers with; anything else (letters, `ext.`) is not a number we can dial.
const DIALABLE = /^\+?[\d\s().\-/]+$/;

export const NO_COUNTRY_CODE =
  'has no country code: write it as +<country code><number>, or set contacts.defaultCountry (CONTACTS_DEFAULT_COUNTRY) to read national numbers';
export const NOT_A_PHONE_NUMBER = 'is not a valid phone number';

/**
 * A phone number as E.164 (`+34612345678`), read with libphonenumber-js's full metadata
 * (a number must fit its country's plan, not only its length). A number written without
 * `+` is read in `defaultCountry`'s plan (national or with its international prefix,
 * e.g. `0034...` in Spain); without one it is refused rather than guessed.
 */
export function normalizePhoneNumber(text: string, defaultCountry: string): Checked<string> {
  const trimmed = text.trim();
  if (!DIALABLE.test(trimmed)) return refuse(NOT_A_PHONE_NUMBER);
  const country = defaultCountry.trim().toUpperCase();
  const known = country !== '' && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  if (!trimmed.startsWith('+') && !known) return refuse(NO_COUNTRY_CODE);
  const parsed = parsePhoneNumberFromString(trimmed, known);
  if (!parsed || !parsed.isValid()) return refuse(NOT_A_PHONE_NUMBER);
  return accept(parsed.number);
}
