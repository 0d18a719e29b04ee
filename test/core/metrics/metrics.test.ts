import crypto from 'node:crypto';
import supertest from 'supertest';
import { coreServices, definePlugin, defineRoute, NotFoundError, Type, Uuid } from '../../../core';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { OUTBOX_COUNT_TIMEOUT_MS } from '../../../core/metrics/database-metrics';
import { freePort, parseMetrics, valueOf, waitFor } from './metrics-helpers';

/** Routes, consumers and a metric of its own, to be seen at /metrics. */
const probe = definePlugin({
  id: 'metrics-probe',
  deps: { http: coreServices.http, bus: coreServices.bus, llm: coreServices.llm, metrics: coreServices.metrics },
  init({ http, bus, llm, metrics }) {
    const reads = metrics.counter({ name: 'things_read_total', help: 'Things read, by outcome', labelNames: ['outcome'] });
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/things/:uuid',
        summary: 'Read a thing (those whose uuid ends in 0 do not exist)',
        params: Type.Object({ uuid: Uuid() }),
        handler: ({ params }) => {
          const found = !params.uuid.endsWith('0');
          reads.inc({ outcome: found ? 'found' : 'missing' });
          if (!found) throw new NotFoundError('No such thing');
          return { data: { uuid: params.uuid } };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/things',
        summary: 'Publish a message per kind',
        body: Type.Object({ kinds: Type.Array(Type.String()), delay: Type.Optional(Type.Integer()) }),
        handler: async ({ body }) => {
          for (const kind of body.kinds) await bus.publish(`probe.${kind}`, { kind }, body.delay ? { delay: body.delay } : {});
          return { data: { published: body.kinds.length } };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/ask',
        summary: 'Ask the model',
        body: Type.Object({ question: Type.String() }),
        handler: async ({ body }) => ({ data: (await llm.chat({ messages: [{ role: 'user', content: body.question }] })).content }),
      }),
    );
    bus.consume({ name: 'fine', topics: ['probe.fine'] }, () => {});
    bus.consume({ name: 'broken', topics: ['probe.broken'], retry: { attempts: 2, backoff: { initialMs: 10, maxMs: 10 } } }, () => {
      throw new Error('always fails');
    });
  },
});

const uuidEndingIn = (digit: string) => crypto.randomUUID().slice(0, -1) + digit;

describe('GET /metrics on the main port, behind METRICS_TOKEN', () => {
  const token = crypto.randomBytes(16).toString('hex');
  let kit: TestKernel;
  let fake: FakeLlmServer;
  const scrape = async () => (await supertest(kit.url).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200)).text;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    kit = await startTestKernel({ plugins: [probe], config: { metricsToken: token, llmBaseUrl: fake.url, llmModel: 'test-model' } });
  });
  afterAll(async () => {
    await kit?.stop();
    await fake?.close();
  });

  it('answers only a bearer of the token', async () => {
    await supertest(kit.url).get('/metrics').expect(401).expect('WWW-Authenticate', 'Bearer');
    await supertest(kit.url).get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
    await supertest(kit.url).get('/metrics').set('Authorization', token).expect(401);
    // A tenant's API token is not the metrics token.
    await supertest(kit.url).get('/metrics').set('Authorization', `Bearer ${kit.token}`).expect(401);
    const response = await supertest(kit.url).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(() => parseMetrics(response.text)).not.toThrow();
  });

  it('counts requests by method, route template and status, never by raw path', async () => {
    const before = await scrape();
    const route = '/api/v1/things/:uuid';
    const found = uuidEndingIn('1');
    const missing = uuidEndingIn('0');
    await kit.api.get(`/api/v1/things/${found}`).expect(200);
    await kit.api.get(`/api/v1/things/${uuidEndingIn('2')}`).expect(200);
    await kit.api.get(`/api/v1/things/${missing}`).expect(404);
    await kit.api.get('/api/v1/things/not-a-uuid').expect(422);
    await kit.api.head(`/api/v1/things/${found}`).expect(200);
    await kit.api.get(`/no/such/route/${missing}`).expect(404);

    const after = await scrape();
    const delta = (labels: Record<string, string>) => (valueOf(after, 'switchboard_http_requests_total', labels) ?? 0) - (valueOf(before, 'switchboard_http_requests_total', labels) ?? 0);
    expect(delta({ method: 'GET', route, status: '200' })).toBe(2);
    expect(delta({ method: 'GET', route, status: '404' })).toBe(1);
    expect(delta({ method: 'GET', route, status: '422' })).toBe(1);
    expect(delta({ method: 'HEAD', route, status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(after).not.toContain(found);
    expect(after).not.toContain(missing);
    expect(after).not.toContain('/no/such/route');
  });

  it('has a latency histogram per method and route template', async () => {
    await kit.api.get(`/api/v1/things/${uuidEndingIn('3')}`).expect(200);
    const text = await scrape();
    const labels = { method: 'GET', route: '/api/v1/things/:uuid' };
    const count = valueOf(text, 'switchboard_http_request_duration_seconds_count', labels)!;
    expect(count).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'switchboard_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count);
    const sum = valueOf(text, 'switchboard_http_request_duration_seconds_sum', labels)!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(count * 10);
    const buckets = parseMetrics(text)
      .filter((s) => s.name === 'switchboard_http_request_duration_seconds_bucket' && s.labels.method === 'GET' && s.labels.route === labels.route)
      .map((s) => s.value);
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });

  it('counts bus messages published, handled, retried and dead-lettered, by topic and consumer', async () => {
    await kit.api.post('/api/v1/things').send({ kinds: ['fine', 'fine', 'broken'] }).expect(200);
    const text = await waitFor(scrape, (t) => valueOf(t, 'switchboard_bus_messages_dead_lettered_total', { consumer: 'metrics-probe.broken' }) === 1 && valueOf(t, 'switchboard_bus_messages_handled_total', { consumer: 'metrics-probe.fine' }) === 2);
    expect(valueOf(text, 'switchboard_bus_messages_published_total', { topic: 'probe.fine' })).toBe(2);
    expect(valueOf(text, 'switchboard_bus_messages_published_total', { topic: 'probe.broken' })).toBe(1);
    expect(valueOf(text, 'switchboard_bus_messages_handled_total', { consumer: 'metrics-probe.fine', topic: 'probe.fine' })).toBe(2);
    expect(valueOf(text, 'switchboard_bus_messages_retried_total', { consumer: 'metrics-probe.broken', topic: 'probe.broken' })).toBe(1);
    expect(valueOf(text, 'switchboard_bus_messages_dead_lettered_total', { consumer: 'metrics-probe.broken', topic: 'probe.broken' })).toBe(1);
    expect(valueOf(text, 'switchboard_bus_messages_handled_total', { consumer: 'metrics-probe.broken' })).toBeUndefined();
  });

  it('reports the database pool and the outbox depth on each scrape', async () => {
    await kit.outboxDrained();
    await kit.api.post('/api/v1/things').send({ kinds: ['fine'], delay: 3_600_000 }).expect(200);
    const text = await scrape();
    expect(valueOf(text, 'switchboard_db_pool_max_connections')).toBe(5);
    const total = valueOf(text, 'switchboard_db_pool_connections')!;
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(5);
    expect(valueOf(text, 'switchboard_db_pool_idle_connections')).toBeLessThanOrEqual(total);
    expect(valueOf(text, 'switchboard_db_pool_waiting_requests')).toBe(0);
    expect(valueOf(text, 'switchboard_bus_outbox_depth', { state: 'scheduled' })).toBe(1);
    expect(valueOf(text, 'switchboard_bus_outbox_depth', { state: 'due' })).toBe(0);
  });

  it('leaves the outbox depth out of a scrape when counting it takes too long, and still answers', async () => {
    await kit.kernel.orm.em.fork().transactional(async (tx) => {
      await tx.getConnection().execute('lock table bus_outbox in access exclusive mode', [], 'run', tx.getTransactionContext());
      const started = Date.now();
      const text = await scrape();
      expect(Date.now() - started).toBeLessThan(OUTBOX_COUNT_TIMEOUT_MS + 3000);
      expect(valueOf(text, 'switchboard_bus_outbox_depth', { state: 'due' })).toBeUndefined();
      expect(valueOf(text, 'switchboard_db_pool_max_connections')).toBe(5);
    });
    expect(JSON.stringify(kit.logs)).toContain('counting the outbox for /metrics failed');
    expect(valueOf(await scrape(), 'switchboard_bus_outbox_depth', { state: 'due' })).toBeDefined();
  });

  it('counts model calls and tokens by tenant slug and model', async () => {
    fake.reply({ content: 'hello', usage: { promptTokens: 7, completionTokens: 3 } });
    await kit.api.post('/api/v1/ask').send({ question: 'hi?' }).expect(200);
    const text = await scrape();
    const labels = { tenant: kit.tenant.slug, model: 'test-model' };
    expect(valueOf(text, 'switchboard_llm_calls_total', { ...labels, status: 'ok' })).toBe(1);
    expect(valueOf(text, 'switchboard_llm_tokens_total', { ...labels, kind: 'prompt' })).toBe(7);
    expect(valueOf(text, 'switchboard_llm_tokens_total', { ...labels, kind: 'completion' })).toBe(3);
  });

  it("serves a plugin's own metrics under its prefix, and the process metrics", async () => {
    await kit.api.get(`/api/v1/things/${uuidEndingIn('0')}`).expect(404);
    const text = await scrape();
    expect(valueOf(text, 'switchboard_metrics_probe_things_read_total', { outcome: 'missing' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});

describe('the separate metrics port (METRICS_PORT)', () => {
  it('serves GET /metrics without a token on its own port, and nothing else; the main port has no /metrics', async () => {
    const kit = await startTestKernel({ plugins: [probe], config: { metricsPort: await freePort() } });
    try {
      await kit.api.get(`/api/v1/things/${uuidEndingIn('1')}`).expect(200);
      const text = (await supertest(kit.kernel.metricsUrl).get('/metrics').expect(200)).text;
      expect(valueOf(text, 'switchboard_http_requests_total', { method: 'GET', route: '/api/v1/things/:uuid', status: '200' })).toBe(1);
      await supertest(kit.kernel.metricsUrl).get('/api/v1/things').expect(404);
      await supertest(kit.kernel.metricsUrl).post('/metrics').expect(404);
      await supertest(kit.url).get('/metrics').expect(404);
    } finally {
      await kit.stop();
    }
  });

  it('is served by a worker, which has no HTTP server of its own', async () => {
    const kit = await startTestKernel({ plugins: [probe], role: 'worker', config: { metricsPort: await freePort() } });
    try {
      const text = (await supertest(kit.kernel.metricsUrl).get('/metrics').expect(200)).text;
      expect(valueOf(text, 'switchboard_db_pool_max_connections')).toBe(5);
    } finally {
      await kit.stop();
    }
  });
});

describe('metrics left unconfigured', () => {
  it('are served nowhere and the kernel records none of its own', async () => {
    const kit = await startTestKernel({ plugins: [probe] });
    try {
      expect(kit.kernel.metrics.enabled).toBe(false);
      await kit.api.get(`/api/v1/things/${uuidEndingIn('0')}`).expect(404);
      await supertest(kit.url).get('/metrics').expect(404);
      const text = await kit.kernel.metrics.text();
      expect(text).not.toContain('switchboard_http_requests_total');
      // A plugin's metric calls still work.
      expect(valueOf(text, 'switchboard_metrics_probe_things_read_total', { outcome: 'missing' })).toBe(1);
    } finally {
      await kit.stop();
    }
  });
});
