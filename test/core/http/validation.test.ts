import { coreServices, definePlugin, defineRoute, ReadOnly, Type, Uuid } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const Settings = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    name: Type.String({ minLength: 1 }),
    guidelines: Type.Optional(Type.Array(Type.Object({ content: Type.String(), order: Type.Integer() }, { additionalProperties: false }))),
    sessionization: Type.Optional(Type.Object({ timeout_minutes: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })),
    created_at: ReadOnly(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

let received: unknown[] = [];
const probe = definePlugin({
  id: 'probe',
  deps: { http: coreServices.http },
  init({ http }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/probe',
        summary: 'Echo a valid body',
        body: Settings,
        status: 201,
        handler: ({ body }) => {
          received.push(body);
          return { data: body };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/probe/:id',
        summary: 'Echo coerced params and query',
        params: Type.Object({ id: Type.Integer() }),
        query: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 500 }), flag: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        handler: ({ params, query }) => ({ data: { params, query } }),
      }),
    );
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/explode',
        summary: 'Fails with a secret in the error',
        handler: () => {
          throw new Error('database password is hunter2');
        },
      }),
    );
  },
});

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [probe], config: { bodyLimit: '2kb' } });
});
afterAll(() => kit?.stop());
beforeEach(() => {
  received = [];
});

describe('request validation', () => {
  it('422 naming each path: nested members, array items, wrong types, unknown and missing members', async () => {
    const res = await kit.api
      .post('/api/v1/probe')
      .send({ guidelines: [{ content: 'ok', order: 1 }, { content: 5, order: 'x', extra: true }], sessionization: { timeout_minutes: 'ten' }, colour: 'red' })
      .expect(422);
    expect(res.body.errors).toEqual({
      name: ['is required'],
      colour: ['is not allowed'],
      'guidelines.1.content': ['must be a string'],
      'guidelines.1.order': ['must be an integer'],
      'guidelines.1.extra': ['is not allowed'],
      'sessionization.timeout_minutes': ['must be an integer'],
    });
    expect(res.body.message).toEqual(expect.any(String));
    expect(received).toEqual([]);
  });

  it('422 for a body that is not an object', async () => {
    const res = await kit.api.post('/api/v1/probe').set('Content-Type', 'application/json').send('[1,2]').expect(422);
    expect(res.body.errors).toEqual({ body: ['must be an object'] });
  });

  it('ignores read-only members, so a client can send back what it read', async () => {
    const res = await kit.api.post('/api/v1/probe').send({ uuid: 'not-even-a-uuid', created_at: 'whenever', name: 'x' }).expect(201);
    expect(res.body).toEqual({ data: { name: 'x' } });
  });

  it('400 for malformed JSON, in the decisions.md shape', async () => {
    const res = await kit.api.post('/api/v1/probe').set('Content-Type', 'application/json').send('{"name": ').expect(400);
    expect(res.body).toEqual({ success: false, message: 'Malformed JSON in request body' });
  });

  it('413 for a body over the limit', async () => {
    const res = await kit.api.post('/api/v1/probe').send({ name: 'x'.repeat(4096) }).expect(413);
    expect(res.body).toEqual({ success: false, message: 'Request body too large', data: [] });
  });

  it('415 for a body that is not JSON', async () => {
    await kit.api.post('/api/v1/probe').set('Content-Type', 'text/plain').send('name=x').expect(415);
  });

  it('coerces params and query strings to their types, applies defaults and refuses what does not fit', async () => {
    const ok = await kit.api.get('/api/v1/probe/7?flag=true').expect(200);
    expect(ok.body.data).toEqual({ params: { id: 7 }, query: { limit: 500, flag: true } });
    const bad = await kit.api.get('/api/v1/probe/seven?limit=0&other=1').expect(422);
    expect(bad.body.errors).toEqual({ id: ['must be an integer'], limit: ['must be >= 1'], other: ['is not allowed'] });
  });
});

describe('envelopes and faults', () => {
  it('404 JSON for an unknown route', async () => {
    const res = await kit.api.get('/api/v1/nothing-here').expect(404);
    expect(res.body).toEqual({ success: false, message: 'Route GET /api/v1/nothing-here not found', data: [] });
  });

  it('500 without the stack or the message, with the request id; the log has the details', async () => {
    const res = await kit.api.get('/api/v1/explode').set('X-Request-Id', 'req-123').expect(500);
    expect(res.body).toEqual({ success: false, message: 'Internal server error', request_id: 'req-123' });
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    const line = kit.logs.find((l) => l.request_id === 'req-123' && l.level === 'error');
    expect(String(line?.error)).toContain('hunter2');
  });

  it('sets X-Request-Id on every response, generating one when none (or a bad one) is sent', async () => {
    const generated = await kit.api.get('/api/v1/nothing-here');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await kit.api.get('/healthz').set('X-Request-Id', 'has spaces and <html>');
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('400, not 500, for a path parameter that is not valid percent-encoding', async () => {
    const res = await kit.api.get('/api/v1/probe/%E0%A4%A').expect(400);
    expect(res.body).toMatchObject({ success: false, message: expect.stringContaining('percent-encoding') });
  });

  it("routes as express did: any case, a trailing slash, HEAD for GET; OPTIONS lists a path's methods", async () => {
    await kit.api.get('/API/V1/Probe/7/').expect(200, { data: { params: { id: 7 }, query: { limit: 500 } } });
    await kit.api.head('/api/v1/probe/7').expect(200);
    const options = await kit.client({}).options('/api/v1/probe').expect(204);
    expect(options.headers.allow).toBe('POST');
    await kit.api.delete('/api/v1/probe/7').expect(404);
  });

  it('healthz and readyz answer without a tenant or token', async () => {
    await kit.client({}).get('/healthz').expect(200, { status: 'ok' });
    await kit.client({}).get('/readyz').expect(200, { status: 'ready', checks: { database: 'up' } });
  });
});
