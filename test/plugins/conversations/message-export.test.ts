import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const CONVERSATIONS = path.resolve(__dirname, '../../../plugins/conversations');
const EXPORT = '/api/v1/analytics/messages';
const POLICY = '/api/v1/settings/message-export';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ROW_MEMBERS = ['message_uuid', 'conversation_uuid', 'session_uuid', 'contact_uuid', 'agent_uuid', 'channel', 'channel_label', 'sender', 'message_type', 'content', 'created_at'];

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS] });
});
afterAll(() => kit?.stop());

const sql = (text: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(text, params);

interface Thread {
  conversation: string;
  session: string;
  agent: string;
  contact: string;
  channel: string;
}

/**
 * A conversation with one session, written by SQL: the conversation routes belong to
 * another part of the plugin, and the export only reads the tables.
 */
async function thread(tenantUuid: string, channel = 'chat'): Promise<Thread> {
  const t: Thread = { conversation: randomUUID(), session: randomUUID(), agent: randomUUID(), contact: randomUUID(), channel };
  await sql(
    `insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, channel, channel_label, started_at) values (?, ?, now(), now(), ?, ?, ?, ?, now())`,
    [t.conversation, tenantUuid, t.agent, t.contact, channel, `label of ${channel}`],
  );
  await sql(
    `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, contact_uuid, channel, started_at) values (?, ?, now(), now(), ?, ?, ?, ?, now())`,
    [t.session, tenantUuid, t.conversation, t.agent, t.contact, channel],
  );
  return t;
}

interface SeedMessage {
  createdAt: string;
  uuid?: string;
  content?: string;
  sender?: string;
}

/** Inserts messages into the thread at the given instants (PostgreSQL text, microseconds kept); answers their uuids. */
async function seed(tenantUuid: string, t: Thread, messages: SeedMessage[]): Promise<string[]> {
  const uuids: string[] = [];
  for (const message of messages) {
    const uuid = message.uuid ?? randomUUID();
    uuids.push(uuid);
    await sql(
      `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content) ` +
        `values (?, ?, ?::timestamptz, now(), ?, ?, ?, ?, ?, ?, ?, 'text', ?)`,
      [uuid, tenantUuid, message.createdAt, t.conversation, t.session, t.contact, t.agent, t.channel, `label of ${t.channel}`, message.sender ?? 'customer', message.content ?? `text ${uuid}`],
    );
  }
  return uuids;
}

/** `count` messages one second apart from `start`, by one statement. */
async function seedMany(tenantUuid: string, t: Thread, count: number, start = '2024-03-01T00:00:00Z'): Promise<void> {
  await sql(
    `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content) ` +
      `select gen_random_uuid(), ?, ?::timestamptz + i * interval '1 second', now(), ?, ?, ?, ?, ?, null, 'agent', 'text', 'message ' || i from generate_series(1, ?) as i`,
    [tenantUuid, start, t.conversation, t.session, t.contact, t.agent, t.channel, count],
  );
}

/** A fresh uuid whose order among others is set by its first 8 hex digits (uuids are primary keys across tenants). */
const ordered = (first8: string) => `${first8}${randomUUID().slice(8)}`;

type Api = TestTenant['api'];
const query = (params: Record<string, string | number | undefined>) => {
  const defined = Object.entries(params).filter(([, value]) => value !== undefined) as Array<[string, string | number]>;
  return defined.length ? `?${new URLSearchParams(defined.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
};
const exportPage = (api: Api, params: Record<string, string | number | undefined> = {}) => api.get(`${EXPORT}${query(params)}`);

/** Every page from the first, following next_cursor; answers the rows and the pages' sizes. */
async function readAll(api: Api, params: Record<string, string | number | undefined> = {}): Promise<{ rows: any[]; pages: number[] }> {
  const rows: any[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (;;) {
    const body = (await exportPage(api, { ...params, cursor }).expect(200)).body;
    rows.push(...body.messages);
    pages.push(body.messages.length);
    if (!body.pagination.has_more) {
      expect(body.pagination.next_cursor).toBeNull();
      return { rows, pages };
    }
    cursor = body.pagination.next_cursor;
    expect(typeof cursor).toBe('string');
    // A cursor that does not move on would page forever.
    if (pages.length > 2000) throw new Error('paging does not end');
  }
}

const byExportOrder = (a: { created_at: string; message_uuid: string }, b: { created_at: string; message_uuid: string }) =>
  Date.parse(a.created_at) - Date.parse(b.created_at) || (a.message_uuid < b.message_uuid ? -1 : a.message_uuid > b.message_uuid ? 1 : 0);

describe('GET /api/v1/analytics/messages: shape and order', () => {
  it('answers exactly {meta, messages, pagination} with the spec’s row', async () => {
    const tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid, 'sms');
    const [uuid] = await seed(tenant.tenant.uuid, t, [{ createdAt: '2024-05-01T10:00:00.123Z', content: 'Hello there', sender: 'agent' }]);

    const res = await exportPage(tenant.api).expect(200);
    expect(res.body).toEqual({
      meta: {},
      messages: [
        {
          message_uuid: uuid,
          conversation_uuid: t.conversation,
          session_uuid: t.session,
          contact_uuid: t.contact,
          agent_uuid: t.agent,
          channel: 'sms',
          channel_label: 'label of sms',
          sender: 'agent',
          message_type: 'text',
          content: 'Hello there',
          created_at: '2024-05-01T10:00:00.123Z',
        },
      ],
      pagination: { next_cursor: null, has_more: false, limit: 500 },
    });
    expect(Object.keys(res.body.messages[0])).toEqual(ROW_MEMBERS);
  });

  it('reads a page with one statement, whatever the filters', async () => {
    const tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid, 'voice'), 5);
    const pool: any = await kit.kernel.orm.em.getConnection().getNativeClient();
    const queries = jest.spyOn(pool, 'query');
    // The statements run on the pool's clients, which the pool keeps: each is watched only while it is out.
    const statements: string[] = [];
    const connect = pool.connect.bind(pool);
    const connects = jest.spyOn(pool, 'connect').mockImplementation(async () => {
      const client = await connect();
      const query = client.query;
      const release = client.release;
      client.query = (statement: any, ...rest: unknown[]) => {
        statements.push(statement?.text ?? statement);
        return query.call(client, statement, ...rest);
      };
      client.release = (...args: unknown[]) => {
        client.query = query;
        client.release = release;
        return release.apply(client, args);
      };
      return client;
    });
    try {
      const filters = { limit: 2, channel: 'voice', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' };
      const first = (await exportPage(tenant.api, filters).expect(200)).body;
      await exportPage(tenant.api, { ...filters, cursor: first.pagination.next_cursor }).expect(200);
      expect(queries).not.toHaveBeenCalled();
      // The authentication's own lookups aside, each page is one statement.
      const exports = statements.filter((statement) => /conversation_messages|message_export_settings/.test(statement));
      expect(exports).toHaveLength(2);
      for (const statement of exports) {
        expect(statement).toMatch(/^copy \(select .* limit 3\) to stdout$/);
        expect(statement).toContain(`m."channel" = 'voice'`);
        expect(statement).toContain(`m."created_at" >= '2024-01-01T00:00:00.000000Z'::timestamptz`);
        expect(statement).toContain(`m."created_at" < '2025-01-01T00:00:00.000000Z'::timestamptz`);
      }
      // Only the second page starts after a position.
      expect(exports.map((statement) => statement.includes('(m."created_at", m."uuid") >'))).toEqual([false, true]);
    } finally {
      queries.mockRestore();
      connects.mockRestore();
    }
  });

  it('returns awkward text exactly as stored, written as JSON.stringify writes it', async () => {
    const tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid);
    const awkward = ['say "hi"', 'back\\slash \\N', 'line\nbreak\ttab\rcr', 'bs\b ff\f vt\v', 'bell\u0007 esc\u001b del\u007f', 'emoji 👋 and é, 日本語', 'line\u2028separator', '\\N', '', '{"json":[1,2]}'];
    const uuids = await seed(
      tenant.tenant.uuid,
      t,
      awkward.map((content, index) => ({ createdAt: `2024-05-01T10:00:${String(index).padStart(2, '0')}Z`, content })),
    );
    await sql(`update conversation_messages set channel_label = null, contact_uuid = null where uuid = ?`, [uuids[0]]);
    await sql(`update conversation_messages set channel_label = ? where uuid = ?`, ['label "\\\t', uuids[1]]);
    const res = await exportPage(tenant.api).expect(200);
    expect(res.body.messages.map((message: { content: string }) => message.content)).toEqual(awkward);
    expect(res.body.messages[0]).toMatchObject({ message_uuid: uuids[0], channel_label: null, contact_uuid: null });
    expect(res.body.messages[1].channel_label).toBe('label "\\\t');
    expect(res.text).toBe(JSON.stringify(res.body));
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  });

  it('an empty workspace answers an empty page', async () => {
    const tenant = await kit.createTenant();
    const res = await exportPage(tenant.api).expect(200);
    expect(res.body).toEqual({ meta: {}, messages: [], pagination: { next_cursor: null, has_more: false, limit: 500 } });
  });

  it('sorts by created_at, then message_uuid for equal instants, in every page', async () => {
    const tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid);
    const same = '2024-05-01T10:00:00.500Z';
    // Inserted out of order, uuids chosen so that insertion order, uuid order and time order all differ.
    const ids = await seed(tenant.tenant.uuid, t, [
      { createdAt: same, uuid: ordered('ffffffff') },
      { createdAt: '2024-05-01T10:00:01Z', uuid: ordered('00000000') },
      { createdAt: same, uuid: ordered('00000000') },
      { createdAt: '2024-05-01T09:59:59Z', uuid: ordered('ffffffff') },
      { createdAt: same, uuid: ordered('7fffffff') },
    ]);
    const expected = [ids[3], ids[2], ids[4], ids[0], ids[1]];
    const all = (await exportPage(tenant.api).expect(200)).body.messages.map((row: any) => row.message_uuid);
    expect(all).toEqual(expected);
    // Page boundaries inside the run of equal instants neither repeat nor lose a row.
    for (const limit of [1, 2, 3]) {
      const { rows } = await readAll(tenant.api, { limit });
      expect(rows.map((row) => row.message_uuid)).toEqual(expected);
    }
  });

  it('keeps microseconds: rows apart by less than a millisecond stay in order and page exactly', async () => {
    const tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid);
    const uuids = await seed(tenant.tenant.uuid, t, [
      { createdAt: '2024-05-01T10:00:00.000003Z', uuid: ordered('00000000') },
      { createdAt: '2024-05-01T10:00:00.000001Z', uuid: ordered('ffffffff') },
      { createdAt: '2024-05-01T10:00:00.000002Z', uuid: ordered('80000000') },
      { createdAt: '2024-05-01T10:00:00Z', uuid: ordered('ffffffff') },
    ]);
    const { rows } = await readAll(tenant.api, { limit: 1 });
    expect(rows.map((row) => row.message_uuid)).toEqual([uuids[3], uuids[1], uuids[2], uuids[0]]);
    expect(rows.map((row) => row.created_at)).toEqual([
      '2024-05-01T10:00:00.000Z',
      '2024-05-01T10:00:00.000001Z',
      '2024-05-01T10:00:00.000002Z',
      '2024-05-01T10:00:00.000003Z',
    ]);
    // `from` with microseconds is exact too.
    const from = (await exportPage(tenant.api, { from: '2024-05-01T10:00:00.000002Z' }).expect(200)).body.messages;
    expect(from.map((row: any) => row.message_uuid)).toEqual([uuids[2], uuids[0]]);
  });
});

describe('the range: from <= created_at < to', () => {
  let tenant: TestTenant;
  let uuids: string[];
  beforeAll(async () => {
    tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid);
    uuids = await seed(tenant.tenant.uuid, t, [
      { createdAt: '2024-05-01T09:59:59.999Z' },
      { createdAt: '2024-05-01T10:00:00Z' },
      { createdAt: '2024-05-01T10:30:00Z' },
      { createdAt: '2024-05-01T10:59:59.999Z' },
      { createdAt: '2024-05-01T11:00:00Z' },
    ]);
  });
  const idsOf = async (params: Record<string, string>) => (await exportPage(tenant.api, params).expect(200)).body.messages.map((row: any) => row.message_uuid);

  it('includes a row exactly at from and excludes one exactly at to', async () => {
    expect(await idsOf({ from: '2024-05-01T10:00:00Z', to: '2024-05-01T11:00:00Z' })).toEqual(uuids.slice(1, 4));
  });

  it('each bound alone; any ISO 8601 offset names the same instant', async () => {
    expect(await idsOf({ from: '2024-05-01T10:00:00Z' })).toEqual(uuids.slice(1));
    expect(await idsOf({ to: '2024-05-01T10:00:00Z' })).toEqual(uuids.slice(0, 1));
    expect(await idsOf({ from: '2024-05-01T12:00:00+02:00', to: '2024-05-01T06:30:00.000-04:30' })).toEqual(uuids.slice(1, 4));
  });

  it('refuses unparseable bounds and an empty or reversed range with 422 at the parameter', async () => {
    const bad = await exportPage(tenant.api, { from: 'yesterday', to: '2024-13-01T00:00:00Z' }).expect(422);
    expect(bad.body).toEqual({ message: expect.any(String), errors: { from: [expect.any(String)], to: [expect.any(String)] } });
    await exportPage(tenant.api, { from: '2024-05-01' }).expect(422);
    await exportPage(tenant.api, { from: '2024-02-30T00:00:00Z' }).expect(422);
    const same = await exportPage(tenant.api, { from: '2024-05-01T10:00:00Z', to: '2024-05-01T12:00:00+02:00' }).expect(422);
    expect(same.body.errors).toEqual({ to: ['must be later than from'] });
    const reversed = await exportPage(tenant.api, { from: '2024-05-01T11:00:00Z', to: '2024-05-01T10:00:00Z' }).expect(422);
    expect(reversed.body.errors).toEqual({ to: ['must be later than from'] });
  });
});

describe('limit', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid), 1001);
  });

  it('defaults to 500 and accepts 1 to 1000', async () => {
    const first = (await exportPage(tenant.api).expect(200)).body;
    expect(first.messages).toHaveLength(500);
    expect(first.pagination).toEqual({ next_cursor: expect.any(String), has_more: true, limit: 500 });
    expect((await exportPage(tenant.api, { limit: 1 }).expect(200)).body.messages).toHaveLength(1);
    const max = (await exportPage(tenant.api, { limit: 1000 }).expect(200)).body;
    expect(max.messages).toHaveLength(1000);
    expect(max.pagination.has_more).toBe(true);
    const rest = (await exportPage(tenant.api, { limit: 1000, cursor: max.pagination.next_cursor }).expect(200)).body;
    expect(rest.messages).toHaveLength(1);
    expect(rest.pagination).toEqual({ next_cursor: null, has_more: false, limit: 1000 });
  });

  it('refuses 0, 1001, a fraction and a word with 422 at limit', async () => {
    for (const limit of ['0', '1001', '2.5', 'many', '-1']) {
      const res = await exportPage(tenant.api, { limit }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['limit']);
    }
  });

  it('a page ending exactly at the last row says has_more false (no empty page after it)', async () => {
    // 1001 = 7 x 143
    const exact = await readAll(tenant.api, { limit: 7 });
    expect(exact.rows).toHaveLength(1001);
    expect(exact.pages).toEqual(Array(143).fill(7));
    const { pages } = await readAll(tenant.api, { limit: 1000 });
    expect(pages).toEqual([1000, 1]);
  });
});

describe('cursor paging', () => {
  it('paging with any page size gives exactly the rows of one big read', async () => {
    const tenant = await kit.createTenant();
    const chat = await thread(tenant.tenant.uuid, 'chat');
    const voice = await thread(tenant.tenant.uuid, 'voice');
    await seedMany(tenant.tenant.uuid, chat, 150, '2024-03-01T00:00:00Z');
    await seedMany(tenant.tenant.uuid, voice, 150, '2024-03-01T00:00:00.5Z');
    // Ties at the same instant across both threads.
    await seed(tenant.tenant.uuid, chat, Array.from({ length: 10 }, () => ({ createdAt: '2024-03-01T00:01:00Z' })));
    await seed(tenant.tenant.uuid, voice, Array.from({ length: 10 }, () => ({ createdAt: '2024-03-01T00:01:00Z' })));

    const whole = (await exportPage(tenant.api, { limit: 1000 }).expect(200)).body.messages;
    expect(whole).toHaveLength(320);
    expect([...whole].sort(byExportOrder)).toEqual(whole);
    for (const limit of [1, 7, 100, 319, 320]) {
      const { rows, pages } = await readAll(tenant.api, { limit });
      expect(rows).toEqual(whole);
      expect(pages.slice(0, -1).every((size) => size === limit)).toBe(true);
    }
    // The same with a range and a channel: the cursor carries on within them.
    const ranged = { from: '2024-03-01T00:00:30Z', to: '2024-03-01T00:01:00.000001Z', channel: 'voice' };
    const filtered = whole.filter((row: any) => row.channel === 'voice' && row.created_at >= '2024-03-01T00:00:30.000Z' && row.created_at <= '2024-03-01T00:01:00.000Z');
    expect(filtered.length).toBeGreaterThan(20);
    expect((await readAll(tenant.api, { ...ranged, limit: 9 })).rows).toEqual(filtered);
  });

  it('stays stable while rows are added: rows behind the cursor never show, rows ahead do, nothing twice', async () => {
    const tenant = await kit.createTenant();
    const t = await thread(tenant.tenant.uuid);
    const second = (n: number) => `2024-03-01T00:00:${String(n).padStart(2, '0')}Z`;
    const original = await seed(
      tenant.tenant.uuid,
      t,
      Array.from({ length: 20 }, (_, i) => ({ createdAt: second(i * 2) })),
    );

    const seen: string[] = [];
    const behind: string[] = [];
    const ahead: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    for (;;) {
      const body = (await exportPage(tenant.api, { limit: 3, cursor }).expect(200)).body;
      seen.push(...body.messages.map((row: any) => row.message_uuid));
      if (!body.pagination.has_more) break;
      cursor = body.pagination.next_cursor;
      page++;
      const last = Date.parse(body.messages.at(-1).created_at);
      // Between pages: one row just behind the position read (odd seconds, and at the same
      // instant as the last row read but with a smaller uuid), one ahead.
      behind.push(...(await seed(tenant.tenant.uuid, t, [{ createdAt: new Date(last - 1000).toISOString() }, { createdAt: new Date(last).toISOString(), uuid: ordered('00000000') }])));
      if (page < 5) ahead.push(...(await seed(tenant.tenant.uuid, t, [{ createdAt: new Date(last + 1000).toISOString() }])));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((uuid) => behind.includes(uuid))).toEqual([]);
    expect(ahead.every((uuid) => seen.includes(uuid))).toBe(true);
    expect(original.every((uuid) => seen.includes(uuid))).toBe(true);
    expect(seen).toHaveLength(original.length + ahead.length);
  });

  it('refuses a malformed or altered cursor with 422 at cursor', async () => {
    const tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid), 5);
    const cursor: string = (await exportPage(tenant.api, { limit: 2 }).expect(200)).body.pagination.next_cursor;
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const altered = [
      'not-a-cursor',
      '',
      cursor.slice(0, -2),
      // The position moved by a second, checksum unchanged.
      Buffer.from(decoded.replace(/:(\d\d)\./, (_, s) => `:${String((Number(s) + 1) % 60).padStart(2, '0')}.`)).toString('base64url'),
      Buffer.from(decoded.replace(/\|[^|]*$/, '|AAAAAAAAAAAAAAAA')).toString('base64url'),
    ];
    for (const bad of altered) {
      const res = await exportPage(tenant.api, { limit: 2, cursor: bad }).expect(422);
      expect(res.body).toEqual({ message: expect.any(String), errors: { cursor: [expect.any(String)] } });
    }
    // The genuine one still works, with another page size too.
    await exportPage(tenant.api, { limit: 3, cursor }).expect(200);
  });

  it('refuses a cursor issued for other filters or another tenant with 422 at cursor', async () => {
    const tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid, 'sms'), 5);
    const params = { channel: 'sms', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z', limit: 2 };
    const cursor: string = (await exportPage(tenant.api, params).expect(200)).body.pagination.next_cursor;
    await exportPage(tenant.api, { ...params, cursor }).expect(200);
    // The same instants written another way are the same filters.
    await exportPage(tenant.api, { ...params, from: '2024-01-01T01:00:00+01:00', cursor }).expect(200);
    for (const other of [{ channel: 'chat' }, { channel: undefined }, { from: '2024-01-01T00:00:01Z' }, { to: undefined }]) {
      const res = await exportPage(tenant.api, { ...params, ...other, cursor }).expect(422);
      expect(res.body.errors).toEqual({ cursor: [expect.stringMatching(/other filters/)] });
    }
    const stranger = await kit.createTenant();
    expect((await exportPage(stranger.api, { ...params, cursor }).expect(422)).body.errors).toEqual({ cursor: [expect.any(String)] });
  });
});

describe('filters and tenants', () => {
  it('channel returns only that channel’s messages; an unknown channel is 422', async () => {
    const tenant = await kit.createTenant();
    const voice = await thread(tenant.tenant.uuid, 'voice');
    const chat = await thread(tenant.tenant.uuid, 'chat');
    const voiceIds = await seed(tenant.tenant.uuid, voice, [{ createdAt: '2024-05-01T10:00:00Z' }, { createdAt: '2024-05-01T10:00:02Z' }]);
    const chatIds = await seed(tenant.tenant.uuid, chat, [{ createdAt: '2024-05-01T10:00:01Z' }]);
    const ids = async (channel: string) => (await exportPage(tenant.api, { channel }).expect(200)).body.messages.map((row: any) => row.message_uuid);
    expect(await ids('voice')).toEqual(voiceIds);
    expect(await ids('chat')).toEqual(chatIds);
    expect(await ids('sms')).toEqual([]);
    const res = await exportPage(tenant.api, { channel: 'fax' }).expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['channel']);
    expect(Object.keys((await exportPage(tenant.api, { colour: 'blue' }).expect(422)).body.errors)).toEqual(['colour']);
  });

  it('never shows another tenant’s messages', async () => {
    const mine = await kit.createTenant();
    const theirs = await kit.createTenant();
    const myIds = await seed(mine.tenant.uuid, await thread(mine.tenant.uuid), [{ createdAt: '2024-05-01T10:00:00Z' }, { createdAt: '2024-05-01T10:00:01Z' }]);
    const theirIds = await seed(theirs.tenant.uuid, await thread(theirs.tenant.uuid), [{ createdAt: '2024-05-01T10:00:00.5Z' }]);
    expect((await readAll(mine.api, { limit: 1 })).rows.map((row) => row.message_uuid)).toEqual(myIds);
    expect((await readAll(theirs.api)).rows.map((row) => row.message_uuid)).toEqual(theirIds);
    // Another tenant's policy does not apply either.
    await theirs.api.put(POLICY).send({ policy: 'disabled' }).expect(200);
    await exportPage(mine.api).expect(200);
  });

  it('keeps pages read at the same time apart, across tenants (pages are written into reused buffers)', async () => {
    const tenants = [await kit.createTenant(), await kit.createTenant()];
    for (const [index, tenant] of tenants.entries()) {
      await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid), 1500 + 500 * index, `2024-0${index + 3}-01T00:00:00Z`);
    }
    // Each page read alone first; then the same pages, twelve at a time, interleaved.
    const pages = tenants.map((tenant) => ({ tenant, params: { limit: 1000 } }));
    const alone = await Promise.all(pages.map(async ({ tenant, params }) => (await exportPage(tenant.api, params).expect(200)).text));
    const together = await Promise.all(Array.from({ length: 12 }, (_, index) => exportPage(pages[index % 2].tenant.api, pages[index % 2].params).expect(200)));
    together.forEach((res, index) => expect(res.text).toBe(alone[index % 2]));
    const tenantOf = (text: string) => new Set(JSON.parse(text).messages.map((row: { conversation_uuid: string }) => row.conversation_uuid));
    expect(tenantOf(alone[0]).size).toBe(1);
    expect([...tenantOf(alone[0])]).not.toEqual([...tenantOf(alone[1])]);
  });

  it('needs a token', async () => {
    await kit.client({ host: `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}` }).get(EXPORT).expect(401);
  });
});

describe('the workspace policy', () => {
  it('GET answers enabled with updated_at null before it is saved; PUT saves it', async () => {
    const tenant = await kit.createTenant();
    expect((await tenant.api.get(POLICY).expect(200)).body).toEqual({ success: true, message: expect.any(String), data: { policy: 'enabled', updated_at: null } });
    const put = await tenant.api.put(POLICY).send({ policy: 'masked' }).expect(200);
    expect(put.body).toEqual({ success: true, message: expect.any(String), data: { policy: 'masked', updated_at: expect.stringMatching(ISO_MS) } });
    expect((await tenant.api.get(POLICY).expect(200)).body.data).toEqual(put.body.data);
    // What was read can be sent back: updated_at is read-only and ignored.
    const again = await tenant.api.put(POLICY).send({ ...put.body.data, policy: 'enabled' }).expect(200);
    expect(again.body.data.policy).toBe('enabled');
    expect(again.body.data.updated_at >= put.body.data.updated_at).toBe(true);
    const rows = await sql('select policy from message_export_settings where tenant_uuid = ?', [tenant.tenant.uuid]);
    expect(rows).toEqual([{ policy: 'enabled' }]);
  });

  it('PUT refuses a missing or unknown policy and other members with 422', async () => {
    const tenant = await kit.createTenant();
    expect((await tenant.api.put(POLICY).send({}).expect(422)).body.errors).toEqual({ policy: ['is required'] });
    expect(Object.keys((await tenant.api.put(POLICY).send({ policy: 'hidden' }).expect(422)).body.errors)).toEqual(['policy']);
    expect(Object.keys((await tenant.api.put(POLICY).send({ policy: 'masked', extra: 1 }).expect(422)).body.errors)).toEqual(['extra']);
    expect((await tenant.api.get(POLICY).expect(200)).body.data.policy).toBe('enabled');
  });

  it('masked replaces every content with ***, on every page', async () => {
    const tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid), 7);
    const plain = (await readAll(tenant.api, { limit: 3 })).rows;
    expect(plain.every((row) => row.content.startsWith('message '))).toBe(true);
    await tenant.api.put(POLICY).send({ policy: 'masked' }).expect(200);
    const masked = (await readAll(tenant.api, { limit: 3 })).rows;
    expect(masked).toEqual(plain.map((row) => ({ ...row, content: '***' })));
  });

  it('disabled answers 403 with the error body, also for an empty workspace and a cursor issued before', async () => {
    const tenant = await kit.createTenant();
    await seedMany(tenant.tenant.uuid, await thread(tenant.tenant.uuid), 3);
    const cursor = (await exportPage(tenant.api, { limit: 1 }).expect(200)).body.pagination.next_cursor;
    await tenant.api.put(POLICY).send({ policy: 'disabled' }).expect(200);
    const refused = await exportPage(tenant.api).expect(403);
    expect(refused.body).toEqual({ success: false, message: 'Message export is disabled by the workspace policy', data: [] });
    await exportPage(tenant.api, { limit: 1, cursor }).expect(403);
    await exportPage(tenant.api, { from: '2030-01-01T00:00:00Z' }).expect(403);
    await tenant.api.put(POLICY).send({ policy: 'enabled' }).expect(200);
    expect((await exportPage(tenant.api, { limit: 1, cursor }).expect(200)).body.messages).toHaveLength(1);
  });
});
