import { CONTACT_MEMBER_NAMES } from './contact-members';

/** A custom field's key: what listing items and `custom_fields` name it by. */
export const FIELD_KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
const FIELD_KEY = new RegExp(FIELD_KEY_PATTERN);

export const FIELD_KEY_RULE = 'must be 1 to 64 lower-case letters, digits or _, starting with a letter';

/** Why `key` cannot name a custom field, or undefined when it can. */
export function fieldKeyProblem(key: string): string | undefined {
  if (!FIELD_KEY.test(key)) return FIELD_KEY_RULE;
  if (CONTACT_MEMBER_NAMES.has(key)) return 'is a built-in member of a contact, not a custom field key';
  return undefined;
}

/** A contact setting's key: one or more field-key-like segments joined by dots (`approvals.auto_approve`). */
export const SETTING_KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}(\\.[a-z][a-z0-9_]{0,63}){0,3}$';
