import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import type { TenantRef } from '../context/request-context';
import { ApiToken } from './api-token.entity';
import { Tenant } from './tenant.entity';
import { hashToken } from './tokens';

/**
 * Work a request starts and a later request without a bearer finishes (an OAuth
 * authorization: its callback comes from the user's browser) is bound to the token that
 * started it: the reference is the token's stored hash, so it names the token without
 * holding it, and the finishing side checks the token is still live and the tenant's.
 */

/** The reference of the request's bearer token; null when it has none. */
export function requestTokenReference(req: Request): string | null {
  const bearer = req.get('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return bearer ? hashToken(bearer) : null;
}

/** Whether the token referenced is a live (not revoked) token of the tenant. */
export async function tokenIsLive(em: EntityManager, reference: string, tenantUuid: string): Promise<boolean> {
  const token = await em.fork().findOne(ApiToken, { tokenHash: reference, tenantUuid, revokedAt: null }, { fields: ['uuid'] });
  return token !== null;
}

/** An active tenant by uuid (not suspended, not being deleted); null otherwise. */
export async function activeTenant(em: EntityManager, uuid: string): Promise<TenantRef | null> {
  const tenant = await em.fork().findOne(Tenant, { uuid, status: 'active' }, { fields: ['uuid', 'slug', 'name'] });
  return tenant ? { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name } : null;
}
