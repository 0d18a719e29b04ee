import { coreServices, defineRoute, definePlugin, Type } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { pruneIdleBuckets, RateBuckets } from '../../../core/limits/rate-buckets';
import { leaseSize, RateLimiter } from '../../../core/limits/rate-limiter';

/** A tenant route and an unauthenticated hook, each answering 200. */
const limited = definePlugin({
  id: 'limited',
  deps: { http: coreServices.http },
  init({ http }) {
    http.route(defineRoute({ method: 'GET', path: '/api/v1/limited/ping', summary: 'Ping', handler: () => ({ data: 'pong' }) }));
    http.route(
      defineRoute({
        method: 'POST',
        path: '/hooks/limited/:id',
        summary: 'A hook',
        auth: 'tenant-host',
        params: Type.Object({ id: Type.String() }),
        handler: () => ({ data: 'hooked' }),
      }),
    );
  },
});

// Rates so slow that nothing refills during a test: what passes is what the bursts allow.
const SLOW = 0.01;
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({
    plugins: [limited],
    config: {
      rateLimitTokenRps: SLOW,
      rateLimitTokenBurst: 3,
      rateLimitTenantRps: SLOW,
      rateLimitTenantBurst: 5,
      rateLimitHookIpRps: SLOW,
      rateLimitHookIpBurst: 4,
      rateLimitHookRps: SLOW,
      rateLimitHookBurst: 2,
    },
  });
});
afterAll(() => kit?.stop());

const statuses = async (send: () => PromiseLike<{ status: number }>, times: number): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < times; i++) out.push((await send()).status);
  return out;
};

describe('rate limits per token and tenant', () => {
  it('answers 429 with Retry-After and the RateLimit headers once a token has spent its burst', async () => {
    const { api } = await kit.createTenant();
    expect(await statuses(() => api.get('/api/v1/limited/ping'), 3)).toEqual([200, 200, 200]);
    const refused = await api.get('/api/v1/limited/ping').expect(429);
    expect(refused.body).toEqual({ success: false, message: expect.stringMatching(/too many requests/i), data: [] });
    // One token refills in 1 / 0.01 = 100 s.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(90);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(100);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // The whole bucket (3 tokens) refills in 300 s.
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(290);
    expect(Number(refused.headers['ratelimit-reset'])).toBeLessThanOrEqual(300);
  });

  it('limits a tenant across its tokens', async () => {
    const { api, tenant } = await kit.createTenant();
    const { plaintext } = await kit.kernel.tenants.createToken(tenant.slug);
    const second = kit.client({ host: `${tenant.slug}.${kit.kernel.config.core.baseDomain}`, token: plaintext });
    expect(await statuses(() => api.get('/api/v1/limited/ping'), 3)).toEqual([200, 200, 200]);
    // The tenant's burst is 5: the second token gets the 2 left, though its own bucket holds 3.
    expect(await statuses(() => second.get('/api/v1/limited/ping'), 3)).toEqual([200, 200, 429]);
  });

  it('spends nothing for an unauthenticated caller', async () => {
    const { tenant, api } = await kit.createTenant();
    const stranger = kit.client({ host: `${tenant.slug}.${kit.kernel.config.core.baseDomain}`, token: 'not-a-token' });
    expect(await statuses(() => stranger.get('/api/v1/limited/ping'), 5)).toEqual([401, 401, 401, 401, 401]);
    expect(await statuses(() => api.get('/api/v1/limited/ping'), 3)).toEqual([200, 200, 200]);
  });
});

describe('rate limits of unauthenticated hooks', () => {
  it('limits each hook (route and path parameters) and each client IP', async () => {
    const { tenant } = await kit.createTenant();
    const caller = kit.client({ host: `${tenant.slug}.${kit.kernel.config.core.baseDomain}` });
    // Hook burst 2: the third call of the same hook is refused (and still spends the IP's token).
    expect(await statuses(() => caller.post('/hooks/limited/a'), 3)).toEqual([200, 200, 429]);
    // IP burst 4: one left for another hook, then the IP is out.
    expect(await statuses(() => caller.post('/hooks/limited/b'), 2)).toEqual([200, 429]);
    const refused = await caller.post('/hooks/limited/c').expect(429);
    expect(refused.headers['ratelimit-limit']).toBe('4');
  });
});

describe('the shared buckets', () => {
  const buckets = () => new RateBuckets(() => kit.kernel.orm.em.fork({ disableContextResolution: true }));

  it('refills by the time elapsed, never past the burst', async () => {
    const store = buckets();
    const key = `refill:${Math.random()}`;
    const spec = { rps: 2, burst: 10 };
    expect(await store.lease(key, spec, 8)).toMatchObject({ granted: 8 });
    expect(await store.lease(key, spec, 8)).toMatchObject({ granted: 2 });
    expect((await store.lease(key, spec, 8)).granted).toBeLessThanOrEqual(1); // a few ms of refill at most
    // As if 1.5 s had passed: 3 tokens.
    await kit.kernel.orm.em.fork().getConnection().execute(`update rate_buckets set updated_at = updated_at - interval '1.5 seconds', tokens = 0 where key = ?`, [key]);
    expect((await store.lease(key, spec, 8)).granted).toBe(3);
    // As if an hour had passed: full, and no more.
    await kit.kernel.orm.em.fork().getConnection().execute(`update rate_buckets set updated_at = updated_at - interval '1 hour' where key = ?`, [key]);
    expect((await store.lease(key, spec, 100)).granted).toBe(10);
  });

  it('two limiters (two processes) on one database together admit no more than the limit plus two leases', async () => {
    const spec = { rps: SLOW, burst: 50 };
    const first = new RateLimiter(buckets(), 100, kit.kernel.logger);
    const second = new RateLimiter(buckets(), 100, kit.kernel.logger);
    const key = `shared:${Math.random()}`;
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? first : second).take(key, spec)));
    const admitted = decisions.filter((d) => d.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(spec.burst - 2 * leaseSize(spec.burst));
    expect(admitted).toBeLessThanOrEqual(spec.burst + 2 * leaseSize(spec.burst));
    // Both really took part.
    expect(first.size).toBe(1);
    expect(second.size).toBe(1);
  });

  it('a limiter that refused lets requests through again once a token has refilled', async () => {
    const limiter = new RateLimiter(buckets(), 100, kit.kernel.logger);
    const key = `again:${Math.random()}`;
    // A token every 500 ms: the refusal below must not race a refill on a loaded machine (at 50 ms it did).
    const spec = { rps: 2, burst: 1 };
    expect((await limiter.take(key, spec)).allowed).toBe(true);
    const refused = await limiter.take(key, spec);
    expect(refused).toMatchObject({ allowed: false, limit: 1, retryAfter: 1 });
    const started = Date.now();
    while (!(await limiter.take(key, spec)).allowed) await new Promise((resolve) => setImmediate(resolve));
    // Refused locally until the refill was due, then leased again.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('prunes buckets idle for a day, and only those', async () => {
    const store = buckets();
    const idle = `idle:${Math.random()}`;
    const busy = `busy:${Math.random()}`;
    await store.lease(idle, { rps: 1, burst: 5 }, 5);
    await store.lease(busy, { rps: 1, burst: 5 }, 5);
    const em = kit.kernel.orm.em.fork();
    await em.getConnection().execute(`update rate_buckets set updated_at = now() - interval '25 hours' where key = ?`, [idle]);
    expect(await pruneIdleBuckets(em)).toBeGreaterThanOrEqual(1);
    const left: Array<{ key: string }> = await em.getConnection().execute(`select key from rate_buckets where key in (?, ?)`, [idle, busy]);
    expect(left.map((row: { key: string }) => row.key)).toEqual([busy]);
  });

  it('keeps at most maxKeys keys in memory', async () => {
    const limiter = new RateLimiter(buckets(), 2, kit.kernel.logger);
    for (const key of ['a', 'b', 'c']) await limiter.take(`lru:${Math.random()}:${key}`, { rps: 1, burst: 5 });
    expect(limiter.size).toBe(2);
  });
});
