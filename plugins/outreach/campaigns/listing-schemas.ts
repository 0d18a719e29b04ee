import { Component, PageQuery, ReadOnly, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid, type Static } from '../../../core';

/** Most contacts one `POST /listings/{uuid}/contacts` may carry. */
export const LISTING_UPLOAD_LIMIT = 1000;

const NullablePool = Type.Union([ResourceId('outreach.pool', 'A pool of this tenant'), Type.Null()], {
  description: 'The campaign pool its contacts join (null: none). While that campaign is `active` the listing is running: contacts newly added get tasks at once.',
});

export const ListingSchema = Component(
  'Listing',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.String({ maxLength: 2000 }),
      pool_uuid: NullablePool,
      campaign_uuid: ReadOnly(Type.Union([Uuid(), Type.Null()], { description: 'The campaign of its pool' })),
      running: ReadOnly(Type.Boolean({ description: 'Its pool’s campaign is `active`: contacts newly added get tasks at once' })),
      contact_count: ReadOnly(Type.Integer({ minimum: 0 })),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A named list of contacts, filled by `POST /api/v1/listings/{uuid}/contacts`; attached to a campaign pool, its contacts join that pool' },
  ),
);
export type ListingJson = Static<typeof ListingSchema>;

export const ListingCreateBody = Type.Object(
  {
    ...ListingSchema.properties,
    description: Type.Optional({ ...ListingSchema.properties.description, default: '' }),
    pool_uuid: Type.Optional({ ...NullablePool, default: null }),
  },
  { additionalProperties: false, examples: [{ name: 'Trade fair 2025', description: 'Badge scans' }] },
);

/** A partial update; what was read may be sent back (read-only members are ignored). */
export const ListingPatchBody = Type.Object(
  {
    ...ListingSchema.properties,
    name: Type.Optional(ListingSchema.properties.name),
    description: Type.Optional(ListingSchema.properties.description),
    pool_uuid: Type.Optional(NullablePool),
  },
  { additionalProperties: false, examples: [{ name: 'Trade fair 2025 (all halls)' }] },
);

export const ListingListQuery = PageQuery({
  pool_uuid: Type.Optional(Uuid({ description: 'Only the listings attached to this pool' })),
});

export const ListingParams = Type.Object({ uuid: ResourceId('outreach.listing', 'The listing’s uuid') });

const ItemValue = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]);
/** A custom field's value: a string per the spec, or a number or boolean for a field of that type (checked against the field by the contacts plugin). */
const CustomValue = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()]);

/** The spec's listing contact item: its built-in members, and any other member a custom contact field. */
export const ListingContactItem = Type.Object(
  {
    name: Type.Optional(ItemValue),
    surname: Type.Optional(ItemValue),
    phone_number: Type.Optional({ ...ItemValue, description: 'Normalized to E.164; the first key a contact is matched by' }),
    email: Type.Optional({ ...ItemValue, description: 'The second key a contact is matched by, when the phone number matches none' }),
    timezone: Type.Optional(ItemValue),
    country_code: Type.Optional(ItemValue),
    primary_language: Type.Optional(ItemValue),
    company: Type.Optional(ItemValue),
    city: Type.Optional(ItemValue),
    lead_source: Type.Optional(ItemValue),
  },
  {
    additionalProperties: CustomValue,
    maxProperties: 200,
    description:
      'A contact to create or update. Any member besides the built-in ones is stored as a custom contact field by that key ' +
      '(the field’s definition is created, as `text`, when the key is new). A null or empty member is not given: an upload never clears a value.',
  },
);

export const ListingContactsBody = Type.Object(
  {
    contacts: Type.Array(ListingContactItem, { minItems: 1, maxItems: LISTING_UPLOAD_LIMIT, description: `1 to ${LISTING_UPLOAD_LIMIT} contacts` }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        contacts: [
          { name: 'Ana', surname: 'García', phone_number: '+34600000001', email: 'ana@example.com', city: 'Madrid', lead_source: 'fair', badge: 'A-17' },
        ],
      },
    ],
  },
);

export const ListingContactsResult = SuccessEnvelope(
  Type.Object({
    created: Type.Integer({ minimum: 0, description: 'Items that created a contact' }),
    updated: Type.Integer({ minimum: 0, description: 'Items that updated the contact they matched (by `phone_number`, else `email`)' }),
    failed: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0, description: 'The item’s position in `contacts`, from 0' }),
        errors: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Problems by member of the item, e.g. `{"email": ["must be an email address"]}`' }),
      }),
      { description: 'The items written nowhere, with why; every other item was kept' },
    ),
    tasks_created: Type.Integer({ minimum: 0, description: 'Tasks created for contacts newly added to a running listing’s pool' }),
  }),
);

export const ListingMemberSchema = Component(
  'ListingContact',
  Type.Object({ contact_uuid: Uuid(), added_at: Timestamp() }, { description: 'A contact on a listing' }),
);
