import type { TOptional } from '@sinclair/typebox';
import { PageQuery, ResourceId, Type } from '../../../core';
import { ContactSchema, contactMembers } from './contact-view';

/** The request schemas of the contact routes (the response is ContactSchema, in contact-view.ts). */

export const ContactParams = Type.Object({ uuid: ResourceId('contacts.contact', 'The contact') });

type Members = typeof contactMembers;
const optionalMembers = Object.fromEntries(Object.entries(contactMembers).map(([name, schema]) => [name, Type.Optional(schema)])) as {
  [K in keyof Members]: TOptional<Members[K]>;
};

// Read-only members of the resource, so a client can send back what it read (they are ignored).
const readOnlyMembers = {
  uuid: Type.Optional(ContactSchema.properties.uuid),
  created_at: Type.Optional(ContactSchema.properties.created_at),
  updated_at: Type.Optional(ContactSchema.properties.updated_at),
};

export const ContactCreateBody = Type.Object(
  { ...readOnlyMembers, ...optionalMembers },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Ana',
        surname: 'García',
        phone_number: '+34 612 345 678',
        email: 'Ana.Garcia@example.com',
        timezone: 'Europe/Madrid',
        country_code: 'es',
        primary_language: 'es',
        company: 'Acme',
        city: 'Madrid',
        lead_source: 'website',
      },
    ],
  },
);

export const ContactPatchBody = Type.Object(
  { ...readOnlyMembers, ...optionalMembers },
  { additionalProperties: false, examples: [{ company: 'Acme Iberia', opted_out: false }] },
);

export const ContactListQuery = PageQuery({
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Search: every word must appear (case-insensitive) in the name, surname, email, phone number or company. ' +
        'Phone numbers are stored as E.164, so `612 345` and `+34612` both find `+34612345678`.',
    }),
  ),
  opted_out: Type.Optional(Type.Boolean({ description: 'Only contacts who opted out (true) or who did not (false)' })),
  lead_source: Type.Optional(Type.String({ maxLength: 200, description: 'Only contacts with exactly this lead source' })),
  country_code: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'Only contacts of this country (ISO 3166-1 alpha-2, any case)' })),
  pipeline_stage: Type.Optional(Type.String({ maxLength: 200, description: 'Only contacts at exactly this pipeline stage' })),
});
