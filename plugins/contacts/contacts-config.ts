import type { ConfigValues } from '../../core';

/** The contacts plugin's config slice (convict); README's contacts settings table lists each. */
export const contactsConfig = {
  defaultCountry: {
    doc: 'Country (ISO 3166 alpha-2) whose numbering plan reads phone numbers written without a + and country code; empty: such numbers are refused',
    format: String,
    default: '',
    env: 'CONTACTS_DEFAULT_COUNTRY',
  },
  analyzerModel: {
    doc: 'Model of the contact analyzers’ calls; empty: LLM_MODEL',
    format: String,
    default: '',
    env: 'CONTACTS_ANALYZER_MODEL',
  },
};

/** The slice as validated at boot. */
export type ContactsSettings = ConfigValues<typeof contactsConfig>;
