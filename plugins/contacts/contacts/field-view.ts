import { Component, ReadOnly, Timestamp, Type, type Static } from '../../../core';
import { CONTACT_FIELD_TYPES, type ContactField } from '../entities/contact-field.entity';
import { FIELD_KEY_PATTERN } from './field-keys';

const DATA_TYPES =
  '`text` (a string), `number` (a JSON number), `date` (ISO 8601 date or date-time, stored as `YYYY-MM-DD` or UTC), `boolean`, `json` (any JSON value), `url` (http or https)';

/** A key in a path: the field's own id (not a uuid), so it names its resource kind for the cross-tenant sweep itself. */
export const FieldKeyParam = (description: string) => Type.String({ pattern: FIELD_KEY_PATTERN, 'x-resource': 'contacts.field', description });

export const ContactFieldSchema = Component(
  'ContactField',
  Type.Object(
    {
      key: Type.String({
        pattern: FIELD_KEY_PATTERN,
        description:
          'The field’s id, immutable and unique within the tenant: 1 to 64 lower-case letters, digits or `_`, starting with a letter, and not a built-in contact member. ' +
          'Contacts hold its value in `custom_fields.<key>`; a listing item member of this name writes it.',
      }),
      name: Type.String({ minLength: 1, maxLength: 200, description: 'How the field is shown' }),
      data_type: Type.String({ enum: [...CONTACT_FIELD_TYPES], description: `Immutable. Every value written is checked against it: ${DATA_TYPES}` }),
      description: Type.String({ maxLength: 2000, description: 'What the field holds (contact analyzers of the field read it)' }),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A custom contact field: a typed value every contact may hold' },
  ),
);
export type ContactFieldJson = Static<typeof ContactFieldSchema>;

export const contactFieldJson = (field: ContactField): ContactFieldJson => ({
  key: field.key,
  name: field.name,
  data_type: field.dataType,
  description: field.description,
  created_at: field.createdAt.toISOString(),
  updated_at: field.updatedAt.toISOString(),
});

const { key, name, data_type, description, created_at, updated_at } = ContactFieldSchema.properties;

export const FieldParams = Type.Object({ key: FieldKeyParam('The field’s key') });

export const FieldCreateBody = Type.Object(
  {
    created_at: Type.Optional(created_at),
    updated_at: Type.Optional(updated_at),
    key,
    name,
    data_type: Type.Optional({ ...data_type, default: 'text' }),
    description: Type.Optional(description),
  },
  { additionalProperties: false, examples: [{ key: 'industry', name: 'Industry', data_type: 'text', description: 'The sector the contact’s company works in' }] },
);

/** `key` and `data_type` may be sent back as read, but not changed. */
export const FieldPatchBody = Type.Object(
  {
    created_at: Type.Optional(created_at),
    updated_at: Type.Optional(updated_at),
    key: Type.Optional(Type.String({ description: 'Immutable: sending another key is a 422' })),
    name: Type.Optional(name),
    data_type: Type.Optional(Type.String({ description: 'Immutable: sending another type is a 422' })),
    description: Type.Optional(description),
  },
  { additionalProperties: false, examples: [{ name: 'Sector', description: 'The sector the contact’s company works in' }] },
);
