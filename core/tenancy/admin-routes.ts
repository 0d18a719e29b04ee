import { Type } from '@sinclair/typebox';
import type { RouteDefinition } from '../http/route';
import { Reply } from '../http/route';
import { DataEnvelope, DeletedEnvelope, ListEnvelope, PageQuery, Timestamp, Uuid, deleted, pageOf } from '../http/schemas';
import { SLUG_PATTERN } from './slug';
import type { TenantDirectory } from './tenant-directory';
import type { Tenant } from './tenant.entity';
import type { ApiToken } from './api-token.entity';
import type { TenantLifecycle } from './tenant-lifecycle';
import type { TenantDeletion } from './tenant-deletion.entity';
import { EffectiveQuotasSchema, QuotaValuesSchema, setTenantQuotas, tenantQuotasJson } from '../limits/quotas';

const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('write')]);

const TenantStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('deleting')], {
  description: '`suspended`: its tokens get 403 and its bus messages (flows, schedules) are held until it is active again; `deleting`: its data is being deleted, it answers 404',
});
const TenantSchema = Type.Object({ uuid: Uuid(), slug: Type.String(), name: Type.String(), status: TenantStatusSchema, created_at: Timestamp() });
/** One tenant, with the quotas in force for it (the list leaves them out: one more query per tenant). */
const TenantWithQuotasSchema = Type.Object({ ...TenantSchema.properties, quotas: EffectiveQuotasSchema });
const DeletionSchema = Type.Object({
  uuid: Uuid(),
  tenant_slug: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
    description: '`failed`: the last attempt failed (see `error`); the job is retried with backoff',
  }),
  deleted_rows: Type.Integer({ description: 'Rows deleted so far by the batches' }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp(),
  started_at: Type.Union([Timestamp(), Type.Null()]),
  finished_at: Type.Union([Timestamp(), Type.Null()]),
});
const TokenSchema = Type.Object({
  uuid: Uuid(),
  name: Type.String(),
  scopes: Type.Array(ScopeSchema),
  created_at: Timestamp(),
  revoked_at: Type.Union([Timestamp(), Type.Null()]),
});
const NewTokenSchema = Type.Object({
  uuid: Uuid(),
  name: Type.String(),
  scopes: Type.Array(ScopeSchema),
  token: Type.String({ description: 'The bearer token; shown only in this response' }),
  created_at: Timestamp(),
});
const SlugParams = Type.Object({ slug: Type.String({ pattern: SLUG_PATTERN }) });

export const tenantJson = (t: Tenant) => ({ uuid: t.uuid, slug: t.slug, name: t.name, status: t.status, created_at: t.createdAt.toISOString() });
export const deletionJson = (d: TenantDeletion) => ({
  uuid: d.uuid,
  tenant_slug: d.tenantSlug,
  status: d.status,
  deleted_rows: Number(d.deletedRows),
  error: d.error,
  created_at: d.createdAt.toISOString(),
  started_at: d.startedAt?.toISOString() ?? null,
  finished_at: d.finishedAt?.toISOString() ?? null,
});
const tokenJson = (t: ApiToken) => ({
  uuid: t.uuid,
  name: t.name,
  scopes: t.scopes,
  created_at: t.createdAt.toISOString(),
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

/** Provisioning over HTTP (decisions.md); present only when ADMIN_TOKEN is set. */
export function adminRoutes(directory: TenantDirectory, lifecycle: TenantLifecycle): RouteDefinition<any, any, any>[] {
  return [
    {
      method: 'POST',
      path: '/admin/v1/tenants',
      summary: 'Create a tenant',
      description: 'Creates a tenant without tokens; give it one with `POST /admin/v1/tenants/{slug}/tokens`.',
      tags: ['admin'],
      auth: 'admin',
      transactional: false,
      body: Type.Object(
        { slug: Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 63 }), name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) },
        { additionalProperties: false, examples: [{ slug: 'acme', name: 'Acme Inc.' }] },
      ),
      status: 201,
      errors: [409],
      response: DataEnvelope(TenantSchema),
      handler: async ({ body }: any) => {
        const { tenant } = await directory.createTenant(body, false);
        return new Reply(201, { data: tenantJson(tenant) });
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/tenants',
      summary: 'List tenants',
      tags: ['admin'],
      auth: 'admin',
      query: PageQuery({ status: Type.Optional(TenantStatusSchema) }),
      response: ListEnvelope(TenantSchema),
      handler: async ({ query }: any) => {
        const [tenants, total] = await directory.listTenants(query, query.status);
        return pageOf(tenants.map(tenantJson), total, query);
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/tenants/:slug',
      summary: 'Get a tenant',
      tags: ['admin'],
      auth: 'admin',
      params: SlugParams,
      errors: [404],
      response: DataEnvelope(TenantWithQuotasSchema),
      handler: async ({ params, em }: any) => {
        const tenant = await lifecycle.find(params.slug);
        return { data: { ...tenantJson(tenant), quotas: await tenantQuotasJson(em, tenant.uuid) } };
      },
    },
    {
      method: 'PATCH',
      path: '/admin/v1/tenants/:slug',
      summary: 'Rename, suspend or reactivate a tenant, or change its quotas',
      description:
        'A suspended tenant answers 403 ("Tenant acme is suspended") to every request, in every process from the next request on; ' +
        'its bus messages (flow runs, tasks, schedule ticks) are held, not handled, and go on when it is `active` again. ' +
        '`quotas` overrides the QUOTA_* defaults for this tenant member by member (null: back to the default; members left out are kept); ' +
        'the answer shows the quotas in force. A tenant being deleted cannot be changed (409).',
      tags: ['admin'],
      auth: 'admin',
      transactional: false,
      params: SlugParams,
      body: Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
          quotas: Type.Optional(QuotaValuesSchema),
        },
        { additionalProperties: false, minProperties: 1, examples: [{ status: 'suspended' }, { quotas: { agents: 5, flows: null } }] },
      ),
      errors: [404, 409],
      response: DataEnvelope(TenantWithQuotasSchema),
      handler: async ({ params, body, em }: any) => {
        const { quotas, ...patch } = body;
        // Stored in the same transaction as the rest of the change.
        const tenant = await lifecycle.update(params.slug, patch, quotas ? (tx, found) => setTenantQuotas(tx, found.uuid, quotas) : undefined);
        return { data: { ...tenantJson(tenant), quotas: await tenantQuotasJson(em, tenant.uuid) } };
      },
    },
    {
      method: 'DELETE',
      path: '/admin/v1/tenants/:slug',
      summary: 'Delete a tenant and all its data',
      description:
        'The tenant answers 404 and its tokens stop working at once, in every process; its data is deleted in the background, ' +
        'a batch at a time. Answers 202 with the deletion job: poll `GET /admin/v1/tenant-deletions/{uuid}` until `done`. ' +
        'The slug stays taken until then. Deleting a tenant being deleted answers with its job.',
      tags: ['admin'],
      auth: 'admin',
      transactional: false,
      params: SlugParams,
      status: 202,
      errors: [404],
      response: DataEnvelope(DeletionSchema),
      handler: async ({ params }: any) => {
        const deletion = await lifecycle.requestDeletion(params.slug);
        return new Reply(202, { data: deletionJson(deletion) }, { Location: `/admin/v1/tenant-deletions/${deletion.uuid}` });
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/tenant-deletions/:uuid',
      summary: "A tenant deletion's progress",
      tags: ['admin'],
      auth: 'admin',
      params: Type.Object({ uuid: Uuid() }),
      errors: [404],
      response: DataEnvelope(DeletionSchema),
      handler: async ({ params }: any) => ({ data: deletionJson(await lifecycle.findDeletion(params.uuid)) }),
    },
    {
      method: 'GET',
      path: '/admin/v1/tenants/:slug/tokens',
      summary: "List a tenant's tokens",
      tags: ['admin'],
      auth: 'admin',
      params: SlugParams,
      errors: [404],
      query: PageQuery(),
      response: ListEnvelope(TokenSchema),
      handler: async ({ params, query }: any) => {
        const [tokens, total] = await directory.listTokens(params.slug, query);
        return pageOf(tokens.map(tokenJson), total, query);
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/tenants/:slug/tokens',
      summary: 'Create a token for a tenant',
      tags: ['admin'],
      auth: 'admin',
      transactional: false,
      params: SlugParams,
      body: Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true })),
        },
        { additionalProperties: false, examples: [{ name: 'reporting', scopes: ['read'] }] },
      ),
      status: 201,
      errors: [404],
      response: DataEnvelope(NewTokenSchema),
      handler: async ({ params, body }: any) => {
        const { token, plaintext } = await directory.createToken(params.slug, body ?? {});
        const { revoked_at: _revoked, ...json } = tokenJson(token);
        return new Reply(201, { data: { ...json, token: plaintext } });
      },
    },
    {
      method: 'DELETE',
      path: '/admin/v1/tenants/:slug/tokens/:uuid',
      summary: 'Revoke a token',
      tags: ['admin'],
      auth: 'admin',
      transactional: false,
      params: Type.Object({ slug: Type.String({ pattern: SLUG_PATTERN }), uuid: Uuid() }),
      errors: [404],
      response: DeletedEnvelope,
      handler: async ({ params }: any) => {
        await directory.revokeToken(params.slug, params.uuid);
        return deleted('Token revoked');
      },
    },
  ];
}
