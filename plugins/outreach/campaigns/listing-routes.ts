import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DataEnvelope,
  PageQuery,
  ValidationError,
  defineRoute,
  deleteRoute,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type FieldErrors,
} from '../../../core';
import { Listing, Pool } from '../entities';
import { findListing } from './find-resources';
import type { CampaignsRuntime } from './campaigns-runtime';
import {
  LISTING_UPLOAD_LIMIT,
  ListingContactsBody,
  ListingContactsResult,
  ListingCreateBody,
  ListingListQuery,
  ListingMemberSchema,
  ListingParams,
  ListingPatchBody,
  ListingSchema,
} from './listing-schemas';
import { renderListing, renderListings } from './listing-view';
import { addToListing, listingContactUuids, listingMemberPage } from './memberships';
import { feedPool } from './pool-feed';

const tags = ['outreach'];

/** Listings (`/api/v1/listings`) and the spec's contact upload into them. */
export const listingRoutes = (runtime: CampaignsRuntime): AnyRoute[] => [
  createListing,
  listListings,
  readListing,
  changeListing(runtime),
  deleteListing,
  uploadListingContacts(runtime),
  listListingContacts,
];

/** The pool a listing names, or a 422 at `pool_uuid`. */
async function poolNamed(em: EntityManager, poolUuid: string): Promise<Pool> {
  const pool = await findByUuid(em, Pool, poolUuid);
  if (!pool) throw ValidationError.field('pool_uuid', 'is not a pool of this tenant');
  return pool;
}

const createListing = defineRoute({
  method: 'POST',
  path: '/api/v1/listings',
  summary: 'Create a listing',
  description:
    'Optionally attached to a campaign pool (`pool_uuid`, a pool of this tenant, else 422): the contacts uploaded to the listing then join that pool, ' +
    'and while the pool’s campaign is `active` (the listing is running) the newly added ones get tasks at once.',
  tags,
  body: ListingCreateBody,
  status: 201,
  response: DataEnvelope(ListingSchema),
  handler: async ({ body, em }) => {
    if (body.name.trim() === '') throw ValidationError.field('name', 'must not be empty');
    const pool = body.pool_uuid ? await poolNamed(em, body.pool_uuid) : null;
    const listing = em.create(Listing, { name: body.name.trim(), description: body.description!, poolUuid: pool?.uuid ?? null });
    await em.flush();
    return { data: await renderListing(em, listing) };
  },
});

const listListings = listRoute({
  path: '/api/v1/listings',
  summary: 'List listings, newest first',
  description: 'Filter with `pool_uuid`.',
  tags,
  query: ListingListQuery,
  item: ListingSchema,
  page: async ({ query, em, tenant }) => {
    const where = query.pool_uuid ? { poolUuid: query.pool_uuid } : {};
    const [listings, total] = await em.findAndCount(Listing, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [await renderListings(em, tenant.uuid, listings), total];
  },
});

const readListing = readRoute({
  path: '/api/v1/listings/:uuid',
  summary: 'Read a listing',
  tags,
  params: ListingParams,
  resource: ListingSchema,
  read: async ({ params, em }) => renderListing(em, await findListing(em, params.uuid)),
});

const changeListing = (runtime: CampaignsRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/listings/:uuid',
    summary: 'Change a listing',
    description:
      'Members left out keep their value; read-only members are ignored, so what was read can be sent back. ' +
      'Attaching it to a pool (`pool_uuid`, a pool of this tenant, else 422) adds its contacts to that pool, with tasks for the newly added eligible ones ' +
      'when that campaign is `active`; `pool_uuid: null` detaches it (the contacts stay in the pool).',
    tags,
    params: ListingParams,
    body: ListingPatchBody,
    errors: [404],
    response: DataEnvelope(ListingSchema),
    handler: async ({ params, body, em, tenant }) => {
      const listing = await findListing(em, params.uuid, 'update');
      const problems: FieldErrors = {};
      if (body.name !== undefined && body.name.trim() === '') problems.name = ['must not be empty'];
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      if (body.name !== undefined) listing.name = body.name.trim();
      if (body.description !== undefined) listing.description = body.description;
      if (body.pool_uuid !== undefined && body.pool_uuid !== listing.poolUuid) {
        const pool = body.pool_uuid === null ? null : await poolNamed(em, body.pool_uuid);
        listing.poolUuid = pool?.uuid ?? null;
        if (pool) await feedPool(runtime, em, tenant.uuid, pool, await listingContactUuids(em, tenant.uuid, listing.uuid));
      }
      await em.flush();
      return { data: await renderListing(em, listing) };
    },
  });

const deleteListing = deleteRoute({
  path: '/api/v1/listings/:uuid',
  summary: 'Delete a listing',
  description: 'Deletes the listing and its list of contacts; the contacts themselves stay, and so do their pool items and tasks.',
  tags,
  params: ListingParams,
  message: 'Listing deleted',
  remove: async ({ params, em }) => {
    const listing = await findListing(em, params.uuid, 'update');
    await em.nativeDelete(Listing, { uuid: listing.uuid });
  },
});

const uploadListingContacts = (runtime: CampaignsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/listings/:uuid/contacts',
    summary: 'Upload contacts to a listing',
    description:
      'Each item is matched by `phone_number` (normalized to E.164) first, then `email`: a match is updated with the members given, otherwise a contact is created. ' +
      'Members besides the built-in ones are custom contact fields (the field is created, as `text`, when its key is new). ' +
      `Up to ${LISTING_UPLOAD_LIMIT} items, in one transaction. An invalid item is reported in \`failed\` (its position and its problems) and skipped; ` +
      'every other item is kept and put on the listing, and, when the listing is attached to a pool, in that pool. ' +
      'When the listing is running (its pool’s campaign is `active`), the contacts newly added to the pool that are eligible (not opted out) get tasks at once, ' +
      'as campaign activation makes them. Answers `{success: true, message: "Success", data: {created, updated, failed, tasks_created}}`.',
    tags,
    params: ListingParams,
    body: ListingContactsBody,
    errors: [404],
    response: ListingContactsResult,
    handler: async ({ params, body, em, tenant }) => {
      // FOR SHARE: the listing keeps its pool until this upload commits (a PATCH moving it waits, then takes these contacts along).
      const listing = await findListing(em, params.uuid, 'share');
      const { created, updated, failed, kept, createdNow } = tally(await runtime.contacts.upsertMany(body.contacts));
      await addToListing(em, tenant.uuid, listing.uuid, kept, createdNow);
      const pool = listing.poolUuid ? await findByUuid(em, Pool, listing.poolUuid) : null;
      const fed = pool ? await feedPool(runtime, em, tenant.uuid, pool, kept, createdNow) : null;
      return { success: true, message: 'Success', data: { created, updated, failed, tasks_created: fed?.tasksCreated ?? 0 } };
    },
  });

/** An upload's outcomes counted: the failed ones reported, the others kept (those created now marked). */
function tally(outcomes: Awaited<ReturnType<CampaignsRuntime['contacts']['upsertMany']>>) {
  let created = 0;
  let updated = 0;
  const failed: Array<{ index: number; errors: Record<string, string[]> }> = [];
  const kept: string[] = [];
  const createdNow = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.status === 'failed') {
      failed.push({ index: outcome.index, errors: outcome.errors });
      continue;
    }
    if (outcome.status === 'created') {
      created++;
      createdNow.add(outcome.contact_uuid);
    } else updated++;
    kept.push(outcome.contact_uuid);
  }
  return { created, updated, failed, kept, createdNow };
}

const listListingContacts = listRoute({
  path: '/api/v1/listings/:uuid/contacts',
  summary: 'List the contacts of a listing, in the order they were added',
  description: 'Read each contact with `GET /api/v1/contacts/{uuid}`.',
  tags,
  params: ListingParams,
  query: PageQuery(),
  errors: [404],
  item: ListingMemberSchema,
  page: async ({ params, query, em, tenant }) => {
    const listing = await findListing(em, params.uuid);
    const { items, total } = await listingMemberPage(em, tenant.uuid, listing.uuid, pageWindow(query));
    return [items, total];
  },
});
