import { Component, PageQuery, ReadOnly, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid, type Static } from '../../../core';

/** Most contacts one `POST /pools/{uuid}/contacts` may add. */
export const POOL_ADD_LIMIT = 1000;

export const PoolSchema = Component(
  'Pool',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      campaign_uuid: ResourceId('outreach.campaign', 'The campaign of this tenant it belongs to (fixed at creation)'),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      contact_count: ReadOnly(Type.Integer({ minimum: 0 })),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'One of a campaign’s working sets of contacts: each of its contacts (a pool item) is worked, and cancelled, on its own' },
  ),
);
export type PoolJson = Static<typeof PoolSchema>;

export const PoolCreateBody = Type.Object(
  { ...PoolSchema.properties },
  { additionalProperties: false, examples: [{ campaign_uuid: '0190d5c2-0000-7000-8000-0000000000bb', name: 'Madrid leads' }] },
);

/** A rename; what was read may be sent back (`campaign_uuid` is ignored: a pool stays with its campaign). */
export const PoolPatchBody = Type.Object(
  { ...PoolSchema.properties, campaign_uuid: ReadOnly(PoolSchema.properties.campaign_uuid), name: Type.Optional(PoolSchema.properties.name) },
  { additionalProperties: false, examples: [{ name: 'Madrid leads (warm)' }] },
);

export const PoolListQuery = PageQuery({
  campaign_uuid: Type.Optional(Uuid({ description: 'Only this campaign’s pools' })),
});

export const PoolParams = Type.Object({ uuid: ResourceId('outreach.pool', 'The pool’s uuid') });

/**
 * The pool item route's ids. The contact's kind is `outreach.pool-item` (a contact that
 * is in that pool), so the cross-tenant sweep makes one pool item and uses both its ids.
 */
export const PoolItemParams = Type.Object({
  uuid: ResourceId('outreach.pool', 'The pool’s uuid'),
  contact_uuid: ResourceId('outreach.pool-item', 'The uuid of a contact in that pool'),
});

export const PoolContactsBody = Type.Object(
  {
    contact_uuids: Type.Array(ResourceId('contacts.contact', 'A contact of this tenant'), {
      minItems: 1,
      maxItems: POOL_ADD_LIMIT,
      description: `1 to ${POOL_ADD_LIMIT} contacts of this tenant (422 at \`contact_uuids.<i>\` for each unknown one, and nothing is added); those already in the pool are skipped`,
    }),
  },
  { additionalProperties: false, examples: [{ contact_uuids: ['0190d5c2-0000-7000-8000-0000000000cc'] }] },
);

export const PoolContactsAddedEnvelope = SuccessEnvelope(
  Type.Object({
    added: Type.Integer({ minimum: 0, description: 'Contacts that were not in the pool yet' }),
    tasks_created: Type.Integer({ minimum: 0, description: 'Tasks created for the added eligible contacts (only while the campaign is `active`)' }),
  }),
);

export const PoolItemSchema = Component(
  'PoolItem',
  Type.Object({ contact_uuid: Uuid(), added_at: Timestamp() }, { description: 'A contact in a pool' }),
);

/** The spec's `DELETE /api/v1/pools/{uuid}/contacts/{contact_uuid}` answer. */
export const PoolItemDeletedEnvelope = SuccessEnvelope(
  Type.Object({
    tasks_cancelled: Type.Integer({ minimum: 0, description: 'That pool item’s tasks cancelled (those `scheduled`, `queued` or `pending`)' }),
  }),
);
