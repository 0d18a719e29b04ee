import type { MikroORM } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { TenantRef } from '../context/request-context';
import type { Scope } from '../http/route';
import { ConflictError, NotFoundError, ValidationError } from '../http/http-errors';
import { ApiToken } from './api-token.entity';
import { Tenant } from './tenant.entity';
import { isValidSlug } from './slug';
import { pageWindow, type PageRequest } from '../http/schemas';
import { generateToken, hashToken } from './tokens';

/** A value, or the promise of one: what a cache answers without a promise on a hit. */
export type MaybePromise<T> = T | Promise<T>;

export interface AuthenticatedToken {
  uuid: string;
  tenantUuid: string;
  scopes: Scope[];
}

interface CacheEntry<T> {
  value: T;
  expires: number;
}

/** Where a revocation is announced to every process's cache. */
export const AUTH_CHANNEL = 'switchboard_auth';

/**
 * Tenants and their tokens: provisioning (CLI and admin API) and the lookups every
 * request makes. Lookups are cached for `cacheTtlMs` because they sit on the hot path.
 * A revocation is announced with NOTIFY on commit, and every process listening
 * (`forget`) drops the token at once; the TTL only bounds the window while a listener
 * is reconnecting.
 */
export class TenantDirectory {
  private readonly tenants = new Map<string, CacheEntry<TenantRef | null>>();
  private readonly tenantsByUuid = new Map<string, CacheEntry<TenantRef | null>>();
  private readonly tokens = new Map<string, CacheEntry<AuthenticatedToken | null>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly cacheTtlMs: number,
  ) {}

  /** Creates a tenant and, unless `withToken` is false, a first read/write token (the CLI prints it). */
  async createTenant(input: { slug: string; name?: string }): Promise<{ tenant: Tenant; token: string }>;
  async createTenant(input: { slug: string; name?: string }, withToken: false): Promise<{ tenant: Tenant }>;
  async createTenant(input: { slug: string; name?: string }, withToken = true): Promise<{ tenant: Tenant; token?: string }> {
    if (!isValidSlug(input.slug)) {
      throw ValidationError.field('slug', 'must be 1-63 of a-z, 0-9 and "-", not starting or ending with "-"');
    }
    const em = this.orm.em.fork();
    const tenant = em.create(Tenant, { slug: input.slug, name: input.name ?? input.slug });
    const plaintext = withToken ? this.newToken(em, tenant.uuid, 'default', ['read', 'write']).plaintext : undefined;
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`Tenant "${input.slug}" already exists`);
      throw error;
    }
    this.tenants.delete(input.slug);
    return { tenant, token: plaintext };
  }

  async listTenants(page: PageRequest): Promise<[Tenant[], number]> {
    return this.orm.em.fork().findAndCount(Tenant, {}, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(page) });
  }

  async createToken(slug: string, input: { name?: string; scopes?: Scope[] } = {}): Promise<{ token: ApiToken; plaintext: string }> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug });
    if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
    const created = this.newToken(em, tenant.uuid, input.name ?? 'token', input.scopes ?? ['read', 'write']);
    await em.flush();
    return created;
  }

  async listTokens(slug: string, page: PageRequest): Promise<[ApiToken[], number]> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug });
    if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
    return em.findAndCount(ApiToken, { tenantUuid: tenant.uuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(page) });
  }

  async revokeToken(slug: string, tokenUuid: string): Promise<ApiToken> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug });
    const token = tenant ? await em.findOne(ApiToken, { uuid: tokenUuid, tenantUuid: tenant.uuid }) : null;
    if (!token) throw new NotFoundError('Token not found');
    token.revokedAt ??= new Date();
    await em.transactional(async (tx) => {
      await tx.flush();
      await tx.getConnection().execute('select pg_notify(?, ?)', [AUTH_CHANNEL, `token:${token.tokenHash}`], 'all', tx.getTransactionContext());
    });
    this.tokens.delete(token.tokenHash);
    return token;
  }

  /** Drops a cached entry another process announced (`token:<hash>`), or everything after a reconnect. */
  forget(announcement?: string): void {
    if (announcement?.startsWith('token:')) this.tokens.delete(announcement.slice('token:'.length));
    else {
      this.tokens.clear();
      this.tenants.clear();
      this.tenantsByUuid.clear();
    }
  }

  /** The tenant with this slug, or null; answered without a promise while it is cached (the request's hot path). */
  findTenant(slug: string): MaybePromise<TenantRef | null> {
    return this.cached(this.tenants, slug, this.loadTenantBySlug);
  }

  /** The tenant with this uuid, or null (bus messages carry only the uuid); without a promise while cached. */
  findTenantByUuid(uuid: string): MaybePromise<TenantRef | null> {
    return this.cached(this.tenantsByUuid, uuid, this.loadTenantByUuid);
  }

  /** The live token with this plaintext, or null (unknown or revoked); without a promise while cached. */
  findToken(plaintext: string): MaybePromise<AuthenticatedToken | null> {
    return this.cached(this.tokens, hashToken(plaintext), this.loadToken);
  }

  // The loaders are made once, not per lookup: a cached lookup allocates nothing.
  private readonly loadTenantBySlug = async (slug: string): Promise<TenantRef | null> => {
    const tenant = await this.orm.em.fork().findOne(Tenant, { slug });
    return tenant ? { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name } : null;
  };

  private readonly loadTenantByUuid = async (uuid: string): Promise<TenantRef | null> => {
    const tenant = await this.orm.em.fork().findOne(Tenant, { uuid });
    return tenant ? { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name } : null;
  };

  private readonly loadToken = async (hash: string): Promise<AuthenticatedToken | null> => {
    const token = await this.orm.em.fork().findOne(ApiToken, { tokenHash: hash, revokedAt: null });
    return token ? { uuid: token.uuid, tenantUuid: token.tenantUuid, scopes: token.scopes } : null;
  };

  private newToken(em: ReturnType<MikroORM['em']['fork']>, tenantUuid: string, name: string, scopes: Scope[]) {
    const plaintext = generateToken();
    const token = em.create(ApiToken, { tenantUuid, name, scopes, tokenHash: hashToken(plaintext) });
    return { token, plaintext };
  }

  private cached<T>(cache: Map<string, CacheEntry<T>>, key: string, load: (key: string) => Promise<T>): MaybePromise<T> {
    const hit = cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    return this.loadInto(cache, key, load);
  }

  private async loadInto<T>(cache: Map<string, CacheEntry<T>>, key: string, load: (key: string) => Promise<T>): Promise<T> {
    const now = Date.now();
    const value = await load(key);
    if (this.cacheTtlMs > 0) {
      if (cache.size > 10_000) cache.clear(); // bounded: a flood of bad tokens cannot grow it without limit
      cache.set(key, { value, expires: now + this.cacheTtlMs });
    }
    return value;
  }
}
