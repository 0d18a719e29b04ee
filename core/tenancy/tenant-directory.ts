import type { MikroORM } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { TenantRef } from '../context/request-context';
import type { Scope } from '../http/route';
import { ConflictError, NotFoundError, ValidationError } from '../http/http-errors';
import { ApiToken } from './api-token.entity';
import { Tenant, type TenantStatus } from './tenant.entity';
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

/**
 * Where a revocation (`token:<hash>`) or a change of a tenant's status (`tenant:<uuid>`:
 * suspended, reactivated, being deleted) is announced to every process's cache.
 */
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
  /**
   * The looked-up tenants that are suspended. Kept beside the refs rather than in them,
   * so the refs requests and messages carry stay {uuid, slug, name}.
   */
  private readonly suspended = new WeakSet<TenantRef>();
  /** Bumped by every forget: a lookup that began before one must not cache what it read (it may predate the change). */
  private generation = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly cacheTtlMs: number,
    /** Slugs no tenant may take (TENANT_RESERVED_SLUGS): hostnames the infrastructure uses. */
    private readonly reservedSlugs: ReadonlySet<string> = new Set(),
  ) {}

  /** Creates a tenant and, unless `withToken` is false, a first read/write token (the CLI prints it). */
  async createTenant(input: { slug: string; name?: string }): Promise<{ tenant: Tenant; token: string }>;
  async createTenant(input: { slug: string; name?: string }, withToken: false): Promise<{ tenant: Tenant }>;
  async createTenant(input: { slug: string; name?: string }, withToken = true): Promise<{ tenant: Tenant; token?: string }> {
    if (!isValidSlug(input.slug)) {
      throw ValidationError.field('slug', 'must be 1-63 of a-z, 0-9 and "-", not starting or ending with "-"');
    }
    if (this.reservedSlugs.has(input.slug)) throw ValidationError.field('slug', `is reserved ("${input.slug}" names infrastructure; see TENANT_RESERVED_SLUGS)`);
    const em = this.orm.em.fork();
    const tenant = em.create(Tenant, { slug: input.slug, name: input.name ?? input.slug });
    const plaintext = withToken ? this.newToken(em, tenant.uuid, 'default', ['read', 'write']).plaintext : undefined;
    try {
      await em.flush();
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const existing = await this.orm.em.fork().findOne(Tenant, { slug: input.slug });
      if (existing?.status === 'deleting') throw new ConflictError(`Tenant "${input.slug}" is being deleted; its slug is free once the deletion is done`);
      throw new ConflictError(`Tenant "${input.slug}" already exists`);
    }
    this.tenants.delete(input.slug);
    return { tenant, token: plaintext };
  }

  async listTenants(page: PageRequest, status?: TenantStatus): Promise<[Tenant[], number]> {
    return this.orm.em.fork().findAndCount(Tenant, status ? { status } : {}, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(page) });
  }

  async createToken(slug: string, input: { name?: string; scopes?: Scope[] } = {}): Promise<{ token: ApiToken; plaintext: string }> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug, status: { $ne: 'deleting' } });
    if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
    const created = this.newToken(em, tenant.uuid, input.name ?? 'token', input.scopes ?? ['read', 'write']);
    await em.flush();
    return created;
  }

  async listTokens(slug: string, page: PageRequest): Promise<[ApiToken[], number]> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug, status: { $ne: 'deleting' } });
    if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
    return em.findAndCount(ApiToken, { tenantUuid: tenant.uuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(page) });
  }

  async revokeToken(slug: string, tokenUuid: string): Promise<ApiToken> {
    const em = this.orm.em.fork();
    const tenant = await em.findOne(Tenant, { slug, status: { $ne: 'deleting' } });
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

  /**
   * Announces, in `em`'s transaction, that a tenant's status changed: on commit every
   * process listening drops its cached tenant (and its tokens), so the change holds for
   * the next request everywhere. The caller forgets it locally after the commit too.
   */
  async announceTenant(em: ReturnType<MikroORM['em']['fork']>, tenantUuid: string): Promise<void> {
    await em.getConnection().execute('select pg_notify(?, ?)', [AUTH_CHANNEL, `tenant:${tenantUuid}`], 'all', em.getTransactionContext());
  }

  /** Drops a cached entry another process announced (`token:<hash>`, `tenant:<uuid>`), or everything after a reconnect. */
  forget(announcement?: string): void {
    this.generation++;
    if (announcement?.startsWith('token:')) this.tokens.delete(announcement.slice('token:'.length));
    else if (announcement?.startsWith('tenant:')) this.forgetTenant(announcement.slice('tenant:'.length));
    else {
      this.tokens.clear();
      this.tenants.clear();
      this.tenantsByUuid.clear();
    }
  }

  /** Drops a tenant from the caches, under both keys (a lookup by slug may have found it, or cached a null for it), with its tokens. */
  forgetTenant(uuid: string): void {
    this.generation++;
    this.tenantsByUuid.delete(uuid);
    for (const [slug, entry] of this.tenants) if (entry.value === null || entry.value.uuid === uuid) this.tenants.delete(slug);
    for (const [hash, entry] of this.tokens) if (entry.value?.tenantUuid === uuid) this.tokens.delete(hash);
  }

  /** Whether this tenant, as found by findTenant or findTenantByUuid, is suspended. */
  isSuspended(tenant: TenantRef): boolean {
    return this.suspended.has(tenant);
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
  private readonly loadTenantBySlug = async (slug: string): Promise<TenantRef | null> => this.refOf(await this.orm.em.fork().findOne(Tenant, { slug }));

  private readonly loadTenantByUuid = async (uuid: string): Promise<TenantRef | null> => this.refOf(await this.orm.em.fork().findOne(Tenant, { uuid }));

  /** What requests and messages see of a tenant; none for a tenant being deleted. */
  private refOf(tenant: Tenant | null): TenantRef | null {
    if (!tenant || tenant.status === 'deleting') return null;
    const ref = { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name };
    if (tenant.status === 'suspended') this.suspended.add(ref);
    return ref;
  }

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
    const generation = this.generation;
    const value = await load(key);
    if (this.cacheTtlMs > 0 && generation === this.generation) {
      if (cache.size > 10_000) cache.clear(); // bounded: a flood of bad tokens cannot grow it without limit
      cache.set(key, { value, expires: now + this.cacheTtlMs });
    }
    return value;
  }
}
