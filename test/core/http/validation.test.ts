import net from 'node:net';
import { coreServices, definePlugin, defineRoute, PageQuery, pageWindow, ReadOnly, Type, Uuid } from '../../../core';
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
        method: 'POST',
        path: '/api/v1/open-probe',
        summary: 'Takes an open member',
        body: Type.Object(
          { channel: Type.Union([Type.Literal('voice'), Type.Literal('sms'), Type.Literal('chat')]), data: Type.Optional(Type.Unknown()) },
          { additionalProperties: false },
        ),
        query: Type.Object({ q: Type.Optional(Type.String()) }),
        status: 201,
        handler: ({ body }) => {
          received.push(body);
          return { data: body };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/unchecked-probe',
        summary: 'Sends what validation would refuse to the database itself, as a route with a gap would',
        handler: async ({ em }) => {
          await em.getConnection().execute(`select 'a${'\u0000'}b'`);
          return { data: 'unreachable' };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/uuid-probe/:id',
        summary: 'Echoes uuids',
        params: Type.Object({ id: Uuid() }),
        query: Type.Object({ other: Uuid() }),
        handler: ({ params, query }) => ({ data: { id: params.id, other: query.other } }),
      }),
    );
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/page-probe',
        summary: 'Pages nothing',
        query: PageQuery(),
        handler: ({ query }) => ({ data: pageWindow(query) }),
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

/** Sends bytes as they are (no client adds a Host header) and reads the whole answer. */
function rawRequest(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

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
    expect(res.body).toEqual({ success: false, message: 'Malformed JSON in request body', data: [] });
  });

  it('400 in the error envelope for a body that is not the gzip its Content-Encoding says', async () => {
    const res = await kit.api.post('/api/v1/probe').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"name": "x"}').expect(400);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('Malformed request body'), data: [] });
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

describe('hostile input', () => {
  /** `{"data": {"a": {"a": ... }}}`: `levels` objects below the body. */
  const nested = (levels: number) => `{"channel":"chat","data":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
  const post = (json: string) => kit.api.post('/api/v1/open-probe').set('Content-Type', 'application/json').send(json);

  beforeEach(() => {
    received = [];
  });

  it('422, never a 500, for members named like Object.prototype members, naming each', async () => {
    const res = await post('{"channel":"chat","constructor":1,"toString":2,"__proto__":{"x":1},"hasOwnProperty":3}').expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    expect(res.body.errors.constructor).toEqual(['is not allowed']);
    const query = await kit.api.get('/api/v1/probe/1?constructor=x&__proto__=y').expect(422);
    expect(query.body.errors.constructor).toEqual(['is not allowed']);
    expect(received).toEqual([]);
  });

  it('422 with the field path for NUL in any string or member name, open members included', async () => {
    const res = await post('{"channel":"chat","data":{"list":["ok","a\\u0000b"],"k\\u0000":"v"}}').expect(422);
    expect(res.body.errors).toEqual(
      JSON.parse('{"data.list.1": ["must not contain the NUL character (\\\\u0000)"], "data.k\\u0000": ["member name must not contain the NUL character (\\\\u0000)"]}'),
    );
    const query = await kit.api.get('/api/v1/probe/1?flag=%00').expect(422);
    expect(query.body.errors).toEqual({ flag: ['must not contain the NUL character (\\u0000)'] });
    expect(received).toEqual([]);
  });

  it('422 for a lone surrogate, which is not Unicode', async () => {
    const res = await post('{"channel":"chat","data":"\\ud800"}').expect(422);
    expect(res.body.errors).toEqual({ data: ['must be valid Unicode (it holds a lone surrogate)'] });
  });

  it('takes HTTP_BODY_MAX_DEPTH levels of nesting and refuses one more with 422', async () => {
    // The body is level 1 and `data`, the first of the nested objects, level 2: 63 of them reach 64.
    await post(nested(63)).expect(201);
    const res = await post(nested(64)).expect(422);
    expect(res.body.errors).toEqual({ [`data${'.a'.repeat(63)}`]: ['nests deeper than 64 levels'] });
  });

  it('answers a value the database refuses with 422, not 503 or 500, past a gap in validation; the server still reads', async () => {
    const res = await kit.api.post('/api/v1/unchecked-probe').expect(422);
    expect(res.body).toEqual({ message: expect.stringContaining('cannot be stored'), errors: { body: [expect.stringContaining('cannot be stored')] } });
    await kit.client({}).get('/readyz').expect(200);
  });

  it('bounds the page number, so no offset overflows what PostgreSQL takes', async () => {
    await kit.api.get('/api/v1/page-probe?page=1000000&per_page=100').expect(200, { data: { limit: 100, offset: 99_999_900 } });
    const res = await kit.api.get('/api/v1/page-probe?page=1e308').expect(422);
    expect(res.body.errors).toEqual({ page: ['must be <= 1000000'] });
  });

  it('takes UUIDs in any case and hands them on in lower case', async () => {
    const res = await kit.api.get('/api/v1/uuid-probe/0198C0DE-7A4E-7C1A-9F0E-3D2B1A0C9E8F?other=0198C0DE-7A4E-7C1A-9F0E-3D2B1A0C9E8F').expect(200);
    expect(res.body.data).toEqual({ id: '0198c0de-7a4e-7c1a-9f0e-3d2b1a0c9e8f', other: '0198c0de-7a4e-7c1a-9f0e-3d2b1a0c9e8f' });
  });

  it('names every allowed value of a union of literals in one message', async () => {
    const res = await post('{"channel":"fax"}').expect(422);
    expect(res.body.errors).toEqual({ channel: ['must be one of: voice, sms, chat'] });
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

  it('answers a missing Host header (400) and an empty one (no tenant: 404) in the error envelope', async () => {
    const answer = async (host: string) => {
      const raw = await rawRequest(kit.url, `GET /api/v1/probe/1 HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
      return { status: raw.split('\r\n')[0], body: JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) };
    };
    expect(await answer('')).toEqual({ status: 'HTTP/1.1 400 Bad Request', body: { success: false, message: 'Missing Host header', data: [] } });
    expect(await answer('Host: \r\n')).toEqual({ status: 'HTTP/1.1 404 Not Found', body: { success: false, message: expect.stringContaining('No tenant in the Host header'), data: [] } });
  });

  it('healthz and readyz answer without a tenant or token', async () => {
    await kit.client({}).get('/healthz').expect(200, { status: 'ok' });
    await kit.client({}).get('/readyz').expect(200, { status: 'ready', checks: { database: 'up' } });
  });
});
