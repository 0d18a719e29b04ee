import path from 'node:path';
import { ConflictError, coreServices, definePlugin, defineRoute, Reply, Type } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { IdempotencyStore } from '../../../core/http/idempotency-store';
import { Note } from '../../../examples/plugins/notes/note.entity';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');

/** A handler parked until the test lets it go, to have a request "still running". */
interface Hold {
  entered: Promise<void>;
  release: () => void;
}
let parked: { entered: () => void; released: Promise<void> } | undefined;
function holdNextHandler(): Hold {
  let entered!: () => void;
  let release!: () => void;
  const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  parked = { entered, released };
  return { entered: enteredPromise, release };
}
async function waitIfParked(): Promise<void> {
  const hold = parked;
  parked = undefined;
  if (hold) {
    hold.entered();
    await hold.released;
  }
}

/** What the next call of a handler does instead of succeeding. */
let failNext: 'throw' | 'conflict' | 'unavailable' | undefined;
/** Calls of the non-transactional and hook handlers, which write nothing to count. */
let plainCalls = 0;
let hookCalls = 0;

const idem = definePlugin({
  id: 'idem',
  dependsOn: ['notes'],
  deps: { http: coreServices.http },
  init({ http }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/idem/notes',
        summary: 'Writes a note (transactional)',
        body: Type.Object({ title: Type.String(), tag: Type.Optional(Type.String({ default: 'none' })) }, { additionalProperties: false }),
        status: 201,
        handler: async ({ body, em }) => {
          const note = em.create(Note, { title: body.title });
          await em.flush();
          await waitIfParked();
          const failure = failNext;
          failNext = undefined;
          if (failure === 'throw') throw new Error('boom');
          if (failure === 'conflict') throw new ConflictError('not now');
          if (failure === 'unavailable') return new Reply(503, { success: false, message: 'try later', data: [] });
          return new Reply(201, { data: { uuid: note.uuid, title: note.title, tag: body.tag } }, { Location: `/api/v1/notes/${note.uuid}` });
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/idem/plain',
        summary: 'Counts calls (not transactional)',
        transactional: false,
        body: Type.Object({ n: Type.Integer() }),
        handler: async () => {
          plainCalls += 1;
          const calls = plainCalls;
          await waitIfParked();
          const failure = failNext;
          failNext = undefined;
          if (failure === 'throw') throw new Error('boom');
          return { data: { calls } };
        },
      }),
    );
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/idem/hooks/:secret',
        summary: 'A hook without a token',
        auth: 'tenant-host',
        params: Type.Object({ secret: Type.String() }),
        handler: () => {
          hookCalls += 1;
          return { data: { calls: hookCalls } };
        },
      }),
    );
  },
});

let kit: TestKernel;
let keys = 0;
const newKey = () => `key-${++keys}-${Date.now()}`;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [NOTES, idem] });
});
afterAll(() => kit?.stop());
beforeEach(() => {
  failNext = undefined;
  parked = undefined;
});

const noteCount = async (api = kit.api) => (await api.get('/api/v1/notes').expect(200)).body.data.pagination.total as number;
const sql = (text: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(text, params);

describe('Idempotency-Key on a transactional POST', () => {
  it('replays the first status, headers and body with Idempotent-Replayed, without running the handler again', async () => {
    const before = await noteCount();
    const key = newKey();
    const first = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'once' }).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'once' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(await noteCount()).toBe(before + 1);
    // Member order is not part of the request.
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ tag: undefined, title: 'once' }).expect(201);
    expect(await noteCount()).toBe(before + 1);
  });

  it('without the header every request runs', async () => {
    const before = await noteCount();
    await kit.api.post('/api/v1/idem/notes').send({ title: 'a' }).expect(201);
    await kit.api.post('/api/v1/idem/notes').send({ title: 'a' }).expect(201);
    expect(await noteCount()).toBe(before + 2);
  });

  it('refuses the same key with another body or path with 422 naming the header', async () => {
    const key = newKey();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'one' }).expect(201);
    const before = await noteCount();
    const otherBody = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'two' }).expect(422);
    expect(otherBody.body.message).toMatch(/^Idempotency-Key was already used with a different request/);
    expect(Object.keys(otherBody.body.errors)).toEqual(['Idempotency-Key']);
    // A default the schema fills in is not the same as sending it: the body is compared as sent.
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'one', tag: 'none' }).expect(422);
    await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 1 }).expect(422);
    expect(await noteCount()).toBe(before);
  });

  it('answers 409 at once while a request with the key is still running, then replays it', async () => {
    const key = newKey();
    const before = await noteCount();
    const hold = holdNextHandler();
    const first = kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'slow' }).then((res) => res);
    await hold.entered;
    try {
      const concurrent = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'slow' });
      expect(concurrent.status).toBe(409);
      expect(concurrent.body).toEqual({ success: false, message: expect.stringMatching(/Idempotency-Key is still in progress/), data: [] });
      // Another key is not held up.
      await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', newKey()).send({ title: 'other' }).expect(201);
    } finally {
      hold.release(); // a failed expectation must not leave the request parked (kit.stop would wait for it)
    }
    expect((await first).status).toBe(201);
    const replay = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'slow' }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual((await first).body);
    expect(await noteCount()).toBe(before + 2);
  });

  it.each([
    ['a 500 (the handler throws)', 'throw', 500],
    ['a 4xx the handler throws', 'conflict', 409],
  ] as const)('after %s nothing is stored and the same key runs again', async (_name, failure, status) => {
    const key = newKey();
    const before = await noteCount();
    failNext = failure;
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'retry' }).expect(status);
    expect(await noteCount()).toBe(before); // the note written before the throw was rolled back
    expect(await sql('select 1 from idempotency_keys where idempotency_key = ?', [key])).toHaveLength(0);
    const retry = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'retry' }).expect(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await noteCount()).toBe(before + 1);
  });

  it('does not store a 5xx the handler returns: the client may retry', async () => {
    const key = newKey();
    const before = await noteCount();
    failNext = 'unavailable';
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'x' }).expect(503);
    const retry = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'x' }).expect(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await noteCount()).toBe(before + 2); // a returned 503 still commits its work; only the answer is not kept
  });

  it('does not store a request refused by validation: the key then works with a valid body', async () => {
    const key = newKey();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 5 }).expect(422);
    const valid = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'fixed' }).expect(201);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a key that is empty, too long or not printable ASCII with 400 in the error envelope', async () => {
    for (const bad of ['', 'k'.repeat(256), 'tab\there']) {
      const res = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', bad).send({ title: 'x' }).expect(400);
      expect(res.body).toEqual({ success: false, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters', data: [] });
    }
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', `~ ${'k'.repeat(253)}`).send({ title: 'x' }).expect(201);
  });
});

describe('whose key it is', () => {
  it("keeps each token's keys apart: another token's same key runs anew", async () => {
    const created = await kit.admin.post('/admin/v1/tenants/acme/tokens').send({ name: 'second' }).expect(201);
    const secondToken = created.body.data.token as string;
    const key = newKey();
    const before = await noteCount();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'mine' }).expect(201);
    const theirs = await kit.api.post('/api/v1/idem/notes').set('Authorization', `Bearer ${secondToken}`).set('Idempotency-Key', key).send({ title: 'mine' }).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await noteCount()).toBe(before + 2);
  });

  it("keeps each tenant's keys apart", async () => {
    const other = await kit.createTenant();
    const key = newKey();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'shared key' }).expect(201);
    const theirs = await other.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'shared key' }).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await noteCount(other.api)).toBe(1);
  });

  it('scopes tenant-host hooks by tenant and hook path', async () => {
    const hook = kit.client({ host: `acme.${kit.kernel.config.core.baseDomain}` });
    const key = newKey();
    const first = await hook.post('/api/v1/idem/hooks/one').set('Idempotency-Key', key).expect(200);
    const replay = await hook.post('/api/v1/idem/hooks/one').set('Idempotency-Key', key).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const otherHook = await hook.post('/api/v1/idem/hooks/two').set('Idempotency-Key', key).expect(200);
    expect(otherHook.headers['idempotent-replayed']).toBeUndefined();
    expect(otherHook.body.data.calls).toBe(first.body.data.calls + 1);
  });

  it('scopes admin routes to the admin', async () => {
    const key = newKey();
    const slug = `idem${Date.now()}`;
    const first = await kit.admin.post('/admin/v1/tenants').set('Idempotency-Key', key).send({ slug }).expect(201);
    const replay = await kit.admin.post('/admin/v1/tenants').set('Idempotency-Key', key).send({ slug }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});

describe('what is stored', () => {
  it('keeps a replayable answer sealed: a new API token never lies in the database in clear', async () => {
    const key = newKey();
    const first = await kit.admin.post('/admin/v1/tenants/acme/tokens').set('Idempotency-Key', key).send({ name: 'sealed' }).expect(201);
    const replay = await kit.admin.post('/admin/v1/tenants/acme/tokens').set('Idempotency-Key', key).send({ name: 'sealed' }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.token).toBe(first.body.data.token);
    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select response_body from idempotency_keys where idempotency_key = ?', [key]);
    expect(rows).toHaveLength(1);
    expect(rows[0].response_body).toMatch(/^sb1:/);
    expect(rows[0].response_body).not.toContain(first.body.data.token);
  });
});

describe('Idempotency-Key on a non-transactional POST', () => {
  it('claims the key while the handler runs (409), stores the answer after it, and replays it', async () => {
    const key = newKey();
    const hold = holdNextHandler();
    const first = kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 1 }).then((res) => res);
    await hold.entered;
    try {
      await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 1 }).expect(409);
      // The transactional path sees the claim too.
      await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'x' }).expect(409);
    } finally {
      hold.release();
    }
    const done = await first;
    expect(done.status).toBe(200);
    const calls = plainCalls;
    const replay = await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 1 }).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(done.body);
    expect(plainCalls).toBe(calls);
  });

  it('frees the key when the handler fails', async () => {
    const key = newKey();
    failNext = 'throw';
    await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 2 }).expect(500);
    const calls = plainCalls;
    const retry = await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 2 }).expect(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(plainCalls).toBe(calls + 1);
  });

  it('takes over a claim whose lease ran out (its process died)', async () => {
    const key = newKey();
    await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 3 }).expect(200);
    await sql(`update idempotency_keys set state = 'running', lease_until = clock_timestamp() - interval '1 second' where idempotency_key = ?`, [key]);
    const calls = plainCalls;
    const rerun = await kit.api.post('/api/v1/idem/plain').set('Idempotency-Key', key).send({ n: 3 }).expect(200);
    expect(rerun.headers['idempotent-replayed']).toBeUndefined();
    expect(plainCalls).toBe(calls + 1);
  });
});

describe('expiry', () => {
  it('an expired key runs anew', async () => {
    const key = newKey();
    const before = await noteCount();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'old' }).expect(201);
    await sql(`update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where idempotency_key = ?`, [key]);
    const again = await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', key).send({ title: 'old' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await noteCount()).toBe(before + 2);
  });

  it('the retention job deletes expired rows in batches and keeps live ones', async () => {
    const live = newKey();
    await kit.api.post('/api/v1/idem/notes').set('Idempotency-Key', live).send({ title: 'live' }).expect(201);
    await sql(
      `insert into idempotency_keys (scope, idempotency_key, request_hash, state, response_status, created_at, expires_at)
       select 'admin', 'expired-' || n, 'h', 'done', 200, clock_timestamp() - interval '2 days', clock_timestamp() - interval '1 day'
         from generate_series(1, 12000) as n`,
    );
    const expiredBefore = Number((await sql(`select count(*) as n from idempotency_keys where expires_at < clock_timestamp()`))[0].n);
    expect(expiredBefore).toBeGreaterThanOrEqual(12000);
    expect(await new IdempotencyStore(kit.kernel.orm, kit.kernel.secrets).pruneExpired()).toBe(expiredBefore);
    expect(await sql(`select 1 from idempotency_keys where expires_at < clock_timestamp()`)).toHaveLength(0);
    expect(await sql('select 1 from idempotency_keys where idempotency_key = ?', [live])).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  it('declares the Idempotency-Key header and its 409/422 answers on every non-public POST, and on nothing else', async () => {
    const document = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) => Object.entries(item));
    const posts = operations.filter(([method]) => method === 'post');
    expect(posts.length).toBeGreaterThan(3);
    for (const [, operation] of posts) {
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
      const success = Object.entries(operation.responses).find(([code]) => code.startsWith('2'))![1] as any;
      expect(success.headers['Idempotent-Replayed']).toBeDefined();
    }
    for (const [, operation] of operations.filter(([method]) => method !== 'post')) {
      expect((operation.parameters ?? []).map((p: any) => p.name)).not.toContain('Idempotency-Key');
    }
  });
});
