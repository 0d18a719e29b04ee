import type { Request } from 'express';
import type { TenantRef } from '../context/request-context';
import type { TenantDirectory } from '../tenancy/tenant-directory';
import { sameSecret } from '../tenancy/tokens';
import { ForbiddenError, NotFoundError, UnauthorizedError } from './http-errors';
import type { Scope } from './route';

export interface AuthSettings {
  baseDomain: string;
  trustProxy: boolean;
  adminToken: string;
}

/**
 * Who is calling: the tenant from the Host subdomain, then a bearer token that must
 * belong to that tenant and carry the route's scope. Never falls back to a default tenant.
 */
export class Authenticator {
  constructor(
    private readonly directory: TenantDirectory,
    private readonly settings: AuthSettings,
  ) {}

  tenantSlugOf(req: Request): string | undefined {
    const forwarded = this.settings.trustProxy ? req.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
    const host = (forwarded || req.get('host') || '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    const suffix = `.${this.settings.baseDomain.toLowerCase()}`;
    if (!host.endsWith(suffix)) return undefined;
    const slug = host.slice(0, -suffix.length);
    return slug && !slug.includes('.') ? slug : undefined;
  }

  /** The tenant the Host names; 404 when there is none. */
  async tenantOf(req: Request): Promise<TenantRef> {
    const slug = this.tenantSlugOf(req);
    const tenant = slug ? await this.directory.findTenant(slug) : null;
    if (!tenant) throw new NotFoundError(slug ? `Tenant "${slug}" not found` : 'No tenant in the Host header (expected {tenant}.' + this.settings.baseDomain + ')');
    return tenant;
  }

  async authenticateTenant(req: Request, scope: Scope): Promise<TenantRef> {
    const tenant = await this.tenantOf(req);
    const bearer = bearerOf(req);
    if (!bearer) throw new UnauthorizedError('Missing bearer token');
    const token = await this.directory.findToken(bearer);
    if (!token || token.tenantUuid !== tenant.uuid) throw new UnauthorizedError('Invalid or revoked token');
    if (!token.scopes.includes(scope)) throw new ForbiddenError(`This token lacks the "${scope}" scope`);
    return tenant;
  }

  adminEnabled(): boolean {
    return this.settings.adminToken !== '';
  }

  authenticateAdmin(req: Request): void {
    const bearer = bearerOf(req);
    if (!bearer || !sameSecret(bearer, this.settings.adminToken)) throw new UnauthorizedError('Invalid admin token');
  }
}

function bearerOf(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
