import type { Request } from 'express';
import type { TenantRef } from '../context/request-context';
import type { AuthenticatedToken, MaybePromise, TenantDirectory } from '../tenancy/tenant-directory';
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
  /** Host header -> tenant slug ('' for none). */
  private readonly slugsByHost = new Map<string, string>();

  constructor(
    private readonly directory: TenantDirectory,
    private readonly settings: AuthSettings,
  ) {}

  tenantSlugOf(req: Request): string | undefined {
    const forwarded = this.settings.trustProxy ? req.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
    const host = forwarded || req.get('host') || '';
    // A server sees a handful of distinct Host values: each is parsed once.
    let slug = this.slugsByHost.get(host);
    if (slug === undefined) {
      slug = this.slugOfHost(host);
      if (this.slugsByHost.size >= 1_000) this.slugsByHost.clear(); // bounded: arbitrary Host headers cannot grow it
      this.slugsByHost.set(host, slug);
    }
    return slug || undefined;
  }

  /** The tenant slug a Host names, or '' for none. */
  private slugOfHost(header: string): string {
    const host = header.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    const suffix = `.${this.settings.baseDomain.toLowerCase()}`;
    if (!host.endsWith(suffix)) return '';
    const slug = host.slice(0, -suffix.length);
    return slug && !slug.includes('.') ? slug : '';
  }

  /**
   * The tenant the Host names; 404 when there is none (or it is being deleted), 403 while
   * it is suspended. Without a promise while the tenant is cached.
   */
  tenantOf(req: Request): MaybePromise<TenantRef> {
    const slug = this.tenantSlugOf(req);
    if (!slug) throw this.noTenant(slug);
    const tenant = this.directory.findTenant(slug);
    if (tenant instanceof Promise) return tenant.then((found) => this.usable(found, slug));
    return this.usable(tenant, slug);
  }

  private usable(tenant: TenantRef | null, slug: string): TenantRef {
    if (!tenant) return this.throwNoTenant(slug);
    if (this.directory.isSuspended(tenant)) throw new ForbiddenError(`Tenant ${slug} is suspended`);
    return tenant;
  }

  /** The tenant, when the bearer token is one of its own and carries `scope`. Without a promise while both are cached. */
  authenticateTenant(req: Request, scope: Scope): MaybePromise<TenantRef> {
    const tenant = this.tenantOf(req);
    const bearer = bearerOf(req);
    if (tenant instanceof Promise) return tenant.then((found) => this.checkToken(found, bearer, scope));
    return this.checkToken(tenant, bearer, scope);
  }

  private checkToken(tenant: TenantRef, bearer: string | undefined, scope: Scope): MaybePromise<TenantRef> {
    if (!bearer) throw new UnauthorizedError('Missing bearer token');
    const token = this.directory.findToken(bearer);
    if (token instanceof Promise) return token.then((found) => this.tokenAllows(found, tenant, scope));
    return this.tokenAllows(token, tenant, scope);
  }

  private tokenAllows(token: AuthenticatedToken | null, tenant: TenantRef, scope: Scope): TenantRef {
    if (!token || token.tenantUuid !== tenant.uuid) throw new UnauthorizedError('Invalid or revoked token');
    if (!token.scopes.includes(scope)) throw new ForbiddenError(`This token lacks the "${scope}" scope`);
    return tenant;
  }

  private noTenant(slug: string | undefined): NotFoundError {
    return new NotFoundError(slug ? `Tenant "${slug}" not found` : 'No tenant in the Host header (expected {tenant}.' + this.settings.baseDomain + ')');
  }

  private throwNoTenant(slug: string): never {
    throw this.noTenant(slug);
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
