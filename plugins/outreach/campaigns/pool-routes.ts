import {
  DataEnvelope,
  NotFoundError,
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
import { Campaign, Pool } from '../entities';
import type { TaskScheduler } from '../tasks/task-scheduler';
import { POOL_ITEM_NOT_FOUND, findCampaign, findPool } from './find-resources';
import type { CampaignsRuntime } from './campaigns-runtime';
import { feedPool } from './pool-feed';
import {
  PoolContactsAddedEnvelope,
  PoolContactsBody,
  PoolCreateBody,
  PoolItemDeletedEnvelope,
  PoolItemParams,
  PoolItemSchema,
  PoolListQuery,
  PoolParams,
  PoolPatchBody,
  PoolSchema,
} from './pool-schemas';
import { renderPool, renderPools } from './pool-view';
import { poolMemberPage } from './memberships';
import { run } from './sql';

const tags = ['outreach'];

/** Pools (`/api/v1/pools`) and their items (`/api/v1/pools/{uuid}/contacts`). */
export const poolRoutes = (runtime: CampaignsRuntime): AnyRoute[] => [
  createPool,
  listPools,
  readPool,
  renamePool,
  deletePool(runtime.tasks),
  addPoolContacts(runtime),
  listPoolContacts,
  removePoolContact(runtime.tasks),
];

const createPool = defineRoute({
  method: 'POST',
  path: '/api/v1/pools',
  summary: 'Create a pool in a campaign',
  description: '`campaign_uuid` must be a campaign of this tenant (422 otherwise). Fill it with `POST /api/v1/pools/{uuid}/contacts` or through a listing attached to it.',
  tags,
  body: PoolCreateBody,
  status: 201,
  response: DataEnvelope(PoolSchema),
  handler: async ({ body, em }) => {
    const problems: FieldErrors = {};
    if (body.name.trim() === '') problems.name = ['must not be empty'];
    if (!(await findByUuid(em, Campaign, body.campaign_uuid))) problems.campaign_uuid = ['is not a campaign of this tenant'];
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    const pool = em.create(Pool, { campaignUuid: body.campaign_uuid, name: body.name.trim() });
    await em.flush();
    return { data: await renderPool(em, pool) };
  },
});

const listPools = listRoute({
  path: '/api/v1/pools',
  summary: 'List pools, newest first',
  description: 'Filter with `campaign_uuid`.',
  tags,
  query: PoolListQuery,
  item: PoolSchema,
  page: async ({ query, em, tenant }) => {
    const where = query.campaign_uuid ? { campaignUuid: query.campaign_uuid } : {};
    const [pools, total] = await em.findAndCount(Pool, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [await renderPools(em, tenant.uuid, pools), total];
  },
});

const readPool = readRoute({
  path: '/api/v1/pools/:uuid',
  summary: 'Read a pool',
  tags,
  params: PoolParams,
  resource: PoolSchema,
  read: async ({ params, em }) => renderPool(em, await findPool(em, params.uuid)),
});

const renamePool = defineRoute({
  method: 'PATCH',
  path: '/api/v1/pools/:uuid',
  summary: 'Rename a pool',
  description: 'Read-only members (`campaign_uuid` too: a pool stays with its campaign) are ignored, so what was read can be sent back.',
  tags,
  params: PoolParams,
  body: PoolPatchBody,
  errors: [404],
  response: DataEnvelope(PoolSchema),
  handler: async ({ params, body, em }) => {
    const pool = await findPool(em, params.uuid, 'update');
    if (body.name !== undefined) {
      if (body.name.trim() === '') throw ValidationError.field('name', 'must not be empty');
      pool.name = body.name.trim();
    }
    await em.flush();
    return { data: await renderPool(em, pool) };
  },
});

const deletePool = (tasks: TaskScheduler) =>
  deleteRoute({
    path: '/api/v1/pools/:uuid',
    summary: 'Delete a pool',
    description:
      'Cancels the waiting tasks (`pending`, `scheduled`, `queued`) of its items, then deletes it with its items. ' +
      'Its contacts stay, and so do their tasks in other pools; listings attached to it stay, unattached.',
    tags,
    params: PoolParams,
    message: 'Pool deleted',
    remove: async ({ params, em }) => {
      const pool = await findPool(em, params.uuid);
      // Held so that an activation cannot give its items tasks between the cancel and the delete.
      await findCampaign(em, pool.campaignUuid, 'share');
      await tasks.cancelWaiting(em, { poolUuid: pool.uuid });
      await em.nativeDelete(Pool, { uuid: pool.uuid });
    },
  });

const addPoolContacts = (runtime: CampaignsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/pools/:uuid/contacts',
    summary: 'Add contacts to a pool',
    description:
      'Adds the contacts (pool items); contacts already in the pool are skipped, so the call can be repeated. Every uuid must be a contact of this tenant: ' +
      'otherwise 422 with each unknown one at `contact_uuids.<i>`, and nothing is added. When the pool’s campaign is `active`, ' +
      'each newly added eligible contact (not opted out) gets a task at once, as activation makes them.',
    tags,
    params: PoolParams,
    body: PoolContactsBody,
    errors: [404],
    response: PoolContactsAddedEnvelope,
    handler: async ({ params, body, em, tenant }) => {
      const pool = await findPool(em, params.uuid);
      const known = await runtime.contacts.get([...new Set(body.contact_uuids)]);
      const problems: FieldErrors = {};
      body.contact_uuids.forEach((uuid, index) => {
        if (!known.has(uuid)) problems[`contact_uuids.${index}`] = ['is not a contact of this tenant'];
      });
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const fed = await feedPool(runtime, em, tenant.uuid, pool, body.contact_uuids);
      return { success: true, message: 'Contacts added to the pool', data: { added: fed.added, tasks_created: fed.tasksCreated } };
    },
  });

const listPoolContacts = listRoute({
  path: '/api/v1/pools/:uuid/contacts',
  summary: 'List the contacts of a pool, in the order they were added',
  description: 'Read each contact with `GET /api/v1/contacts/{uuid}`.',
  tags,
  params: PoolParams,
  query: PageQuery(),
  errors: [404],
  item: PoolItemSchema,
  page: async ({ params, query, em, tenant }) => {
    const pool = await findPool(em, params.uuid);
    const { items, total } = await poolMemberPage(em, tenant.uuid, pool.uuid, pageWindow(query));
    return [items, total];
  },
});

const removePoolContact = (tasks: TaskScheduler) =>
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/pools/:uuid/contacts/:contact_uuid',
    summary: 'Remove a contact from a pool',
    description:
      'Cancels that pool item’s tasks that are `scheduled`, `queued` or `pending` and removes the contact from the pool; answers ' +
      '`{success, message, data: {tasks_cancelled}}`. The contact’s tasks in other pools, of this campaign or another, are not touched, ' +
      'nor are its tasks already running or finished. 404 when the contact is not in the pool.',
    tags,
    params: PoolItemParams,
    errors: [404],
    response: PoolItemDeletedEnvelope,
    handler: async ({ params, em, tenant }) => {
      const pool = await findPool(em, params.uuid);
      // Held so that an activation cannot give this item a task between the cancel and the removal.
      await findCampaign(em, pool.campaignUuid, 'share');
      const removed = await run(em, 'delete from pool_items where tenant_uuid = ? and pool_uuid = ? and contact_uuid = ? returning uuid', [
        tenant.uuid,
        pool.uuid,
        params.contact_uuid,
      ]);
      if (removed.length === 0) throw new NotFoundError(POOL_ITEM_NOT_FOUND);
      const cancelled = await tasks.cancelForPoolItem(em, pool.uuid, params.contact_uuid);
      return { success: true, message: 'Contact removed from the pool', data: { tasks_cancelled: cancelled } };
    },
  });
