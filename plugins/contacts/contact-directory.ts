import { createServiceRef } from '../../core';

/** A contact as the API returns it (contacts/contact-view.ts has its schema). */
export interface ContactJson {
  uuid: string;
  name: string | null;
  surname: string | null;
  phone_number: string | null;
  email: string | null;
  timezone: string | null;
  country_code: string | null;
  primary_language: string | null;
  company: string | null;
  city: string | null;
  lead_source: string | null;
  pipeline_stage: string | null;
  custom_fields: Record<string, unknown>;
  opted_out: boolean;
  created_at: string;
  updated_at: string;
}

/** One item of an upsert (the spec's listing contact item): built-in members, anything else a custom field. */
export type ContactItem = Record<string, unknown>;

/** What became of one item of `upsertMany`, in the order given. */
export type UpsertOutcome =
  | { index: number; status: 'created' | 'updated'; contact_uuid: string }
  | { index: number; status: 'failed'; errors: Record<string, string[]> };

/**
 * The contacts plugin's API for other plugins (outreach), in the current tenant and
 * transaction.
 */
export interface ContactDirectory {
  /** The contacts of the tenant among these, by uuid, in one query; unknown ones are absent. */
  get(contactUuids: readonly string[]): Promise<Map<string, ContactJson>>;
  /**
   * Upsert of listing items: each is matched by `phone_number` (normalized to E.164)
   * first, then `email`; a match is updated with the members given, otherwise a contact
   * is created. Members beyond the built-in ones are custom fields (their definition is
   * created, as `text`, when the key is new). An invalid item is reported with its
   * errors (paths relative to the item) and skipped; the valid ones are written.
   */
  upsertMany(items: readonly ContactItem[]): Promise<UpsertOutcome[]>;
  /**
   * The task body's `contact`: the contact with this phone or email, else a new one.
   * Throws a ValidationError with paths under `pathPrefix` (e.g. `contact.phone_number`).
   */
  findOrCreate(item: ContactItem, pathPrefix: string): Promise<{ contact: ContactJson; created: boolean }>;
}

export const contactDirectoryRef = createServiceRef<ContactDirectory>('contacts.directory');
