import { Type } from '@sinclair/typebox';
import type { RouteDefinition } from '../http/route';
import { Reply } from '../http/route';
import { DataEnvelope, DeletedEnvelope, ListEnvelope, PageQuery, Timestamp, Uuid, deleted, pageOf } from '../http/schemas';
import { SLUG_PATTERN } from './slug';
import type { TenantDirectory } from './tenant-directory';
import type { Tenant } from './tenant.entity';
import type { ApiToken } from './api-token.entity';

const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('write')]);

const TenantSchema = Type.Object({ uuid: Uuid(), slug: Type.String(), name: Type.String(), created_at: Timestamp() });
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

const tenantJson = (t: Tenant) => ({ uuid: t.uuid, slug: t.slug, name: t.name, created_at: t.createdAt.toISOString() });
const tokenJson = (t: ApiToken) => ({
  uuid: t.uuid,
  name: t.name,
  scopes: t.scopes,
  created_at: t.createdAt.toISOString(),
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

/** Provisioning over HTTP (decisions.md); present only when ADMIN_TOKEN is set. */
export function adminRoutes(directory: TenantDirectory): RouteDefinition<any, any, any>[] {
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
      query: PageQuery(),
      response: ListEnvelope(TenantSchema),
      handler: async ({ query }: any) => {
        const [tenants, total] = await directory.listTenants(query);
        return pageOf(tenants.map(tenantJson), total, query);
      },
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
