import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, addRecords, createTable, searchTable, sql } from './search-helpers';

let kit: TestKernel;
let helpCenter: string;
const ids: Record<string, string> = {};

const ARTICLES = [
  { key: 'refunds', title: 'Refund policy', body: 'Our refund policy: refunds are paid within 14 days of the return.', views: 120, published: '2024-03-01' },
  { key: 'shipping', title: 'Shipping policy', body: 'We ship worldwide. Orders leave the warehouse within two days.', views: 80, published: '2024-02-11' },
  { key: 'costs', title: 'Shipping costs', body: 'Shipping costs are refunded only when the item arrived damaged; see the policy on returns.', views: 45, published: null },
  { key: 'hours', title: 'Opening hours', body: 'The store opens at 9 and closes at 18, also on public holidays.', views: 300, published: '2023-12-24' },
  { key: 'warranty', title: 'Warranty', body: 'Every laptop comes with a two-year warranty covering battery and screen.', views: 95, published: '2024-01-05' },
  { key: 'cartoon', title: 'Cartoons', body: 'Tom & Jerry <b>classic</b> episodes are streamed on Sundays.', views: 7, published: '2024-04-01' },
];

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
  helpCenter = await createTable(kit.api, 'Help center', [
    { name: 'title', data_type: 'text' },
    { name: 'body', data_type: 'text' },
    { name: 'views', data_type: 'number' },
    { name: 'published', data_type: 'date' },
  ]);
  const uuids = await addRecords(
    kit.api,
    helpCenter,
    ARTICLES.map(({ key: _key, ...values }) => values),
  );
  ARTICLES.forEach((article, index) => (ids[uuids[index]] = article.key));
});
afterAll(() => kit?.stop());

const keysOf = (hits: Array<{ record_uuid: string }>) => hits.map((hit) => ids[hit.record_uuid]);

describe('POST /api/v1/data/{uuid}/search: ranking', () => {
  it('ranks the exact phrase first, then both words apart, then one word', async () => {
    const keys = keysOf(await searchTable(kit.api, helpCenter, 'refund policy'));
    expect(keys[0]).toBe('refunds');
    expect(keys.indexOf('costs')).toBeGreaterThan(0);
    // "Shipping policy" holds only one of the words: found, but below the records holding both.
    expect(keys).toContain('shipping');
    expect(keys.indexOf('shipping')).toBeGreaterThan(keys.indexOf('costs'));
  });

  it('ranks the words side by side above the same words repeated far apart', async () => {
    const table = await createTable(kit.api, 'Proximity', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, table, [
      { text: 'Every refund is checked by hand. Refund requests go to the desk, refund rules change often, and the store has a policy on it, a written policy.' },
      { text: 'Refund policy for online orders' },
    ]);
    expect((await searchTable(kit.api, table, 'refund policy')).map((hit) => hit.values.text)[0]).toBe('Refund policy for online orders');
  });

  it('leaves out what the query excludes (-word), also from the typo-forgiving matches', async () => {
    const keys = keysOf(await searchTable(kit.api, helpCenter, 'policy -shipping'));
    expect(keys).toEqual(['refunds']);
  });

  it('finds a record despite a typo in the query', async () => {
    expect(keysOf(await searchTable(kit.api, helpCenter, 'warrenty'))[0]).toBe('warranty');
    expect(keysOf(await searchTable(kit.api, helpCenter, 'opning hours'))[0]).toBe('hours');
    // Two letters swapped: the commonest typo, and the one trigrams forgive least.
    expect(keysOf(await searchTable(kit.api, helpCenter, 'lpatop'))[0]).toBe('warranty');
    expect(keysOf(await searchTable(kit.api, helpCenter, 'hoilday'))[0]).toBe('hours');
  });

  it('stems words in the table’s language: "refunds" and "refunding" find "refund"', async () => {
    expect(keysOf(await searchTable(kit.api, helpCenter, 'refunding'))).toEqual(expect.arrayContaining(['refunds', 'costs']));
    expect(keysOf(await searchTable(kit.api, helpCenter, 'refunds')).slice(0, 2).sort()).toEqual(['costs', 'refunds']);
  });

  it('answers a question in natural language with the record holding most of its words', async () => {
    expect(keysOf(await searchTable(kit.api, helpCenter, 'how long until my refund is paid?'))[0]).toBe('refunds');
  });

  it('answers nothing when nothing matches', async () => {
    const res = await kit.api.post(`/api/v1/data/${helpCenter}/search`).send({ query: 'quantum chromodynamics' }).expect(200);
    expect(res.body).toEqual({ success: true, message: '0 matching records', data: { items: [], count: 0 } });
  });

  it('returns at most `limit` hits, each with its values by column name and a fused score', async () => {
    const res = await kit.api.post(`/api/v1/data/${helpCenter}/search`).send({ query: 'policy', limit: 2 }).expect(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.count).toBe(2);
    expect(res.body.data.items).toHaveLength(2);
    const [first, second] = res.body.data.items;
    expect(first).toEqual({
      table_uuid: helpCenter,
      table_name: 'Help center',
      record_uuid: expect.any(String),
      score: expect.any(Number),
      values: { title: expect.any(String), body: expect.any(String), views: expect.any(Number), published: expect.anything() },
      snippet: expect.stringContaining('<b>'),
    });
    expect(first.score).toBeGreaterThanOrEqual(second.score);
    const costs = (await searchTable(kit.api, helpCenter, 'damaged')).find((hit) => ids[hit.record_uuid] === 'costs')!;
    expect(costs.values).toEqual({ title: 'Shipping costs', body: ARTICLES[2].body, views: 45, published: null });
  });
});

describe('snippets', () => {
  it('mark the matched words, and the corrected spelling of a misspelt one', async () => {
    const [refund] = await searchTable(kit.api, helpCenter, 'refund policy');
    expect(refund.snippet).toContain('<b>Refund</b> <b>policy</b>');
    const [warranty] = await searchTable(kit.api, helpCenter, 'warrenty');
    expect(warranty.snippet).toContain('<b>warranty</b>');
  });

  it('are HTML-escaped: only the match marks are markup', async () => {
    const [cartoon] = await searchTable(kit.api, helpCenter, 'jerry');
    expect(cartoon.snippet).toContain('Tom &amp; <b>Jerry</b>');
    expect(cartoon.snippet.replace(/<\/?b>/g, '')).not.toMatch(/[<>]/);
  });
});

describe('tables and tenants', () => {
  it('searches one table: records of another table of the tenant are not found', async () => {
    const other = await createTable(kit.api, 'Other', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, other, [{ text: 'Refund policy of the other shop' }]);
    const hits = await searchTable(kit.api, helpCenter, 'refund policy');
    expect(hits.every((hit) => hit.table_uuid === helpCenter)).toBe(true);
    expect((await searchTable(kit.api, other, 'refund policy')).map((hit) => hit.values.text)).toEqual(['Refund policy of the other shop']);
  });

  it('answers 404 with the spec’s body for an unknown table and for another tenant’s table', async () => {
    const missing = await kit.api.post('/api/v1/data/01960000-0000-7000-8000-000000000000/search').send({ query: 'refund' }).expect(404);
    expect(missing.body).toEqual({ success: false, message: 'Data not found', data: [expect.any(String)] });
    const stranger = await kit.createTenant();
    await stranger.api.post(`/api/v1/data/${helpCenter}/search`).send({ query: 'refund' }).expect(404);
  });

  it('uses each table’s language: a German table stems German words', async () => {
    const german = await createTable(kit.api, 'Hilfe', [{ name: 'text', data_type: 'text' }], 'german');
    await addRecords(kit.api, german, [{ text: 'Die Rückerstattung dauert vierzehn Tage.' }, { text: 'Öffnungszeiten am Feiertag' }]);
    expect((await searchTable(kit.api, german, 'Rückerstattungen'))[0].values.text).toBe('Die Rückerstattung dauert vierzehn Tage.');
    const [entry] = await sql(kit, `select tsv::text as tsv from data_table_search_entries where table_uuid = ? and document like 'Die%'`, [german]);
    expect(entry.tsv).toContain("'ruckerstatt'");
  });
});

describe('validation', () => {
  const search = (body: unknown) => kit.api.post(`/api/v1/data/${helpCenter}/search`).send(body as object);

  it('refuses a missing, empty or too long query', async () => {
    expect((await search({}).expect(422)).body.errors).toHaveProperty('query');
    expect((await search({ query: '' }).expect(422)).body.errors).toHaveProperty('query');
    expect((await search({ query: 'x'.repeat(501) }).expect(422)).body.errors).toHaveProperty('query');
    await search({ query: 'x'.repeat(500) }).expect(200);
  });

  it('refuses a limit outside 1..50 and unknown members', async () => {
    expect((await search({ query: 'refund', limit: 0 }).expect(422)).body.errors).toHaveProperty('limit');
    expect((await search({ query: 'refund', limit: 51 }).expect(422)).body.errors).toHaveProperty('limit');
    expect((await search({ query: 'refund', limit: 2.5 }).expect(422)).body.errors).toHaveProperty('limit');
    const unknown = await search({ query: 'refund', mode: 'lookup' }).expect(422);
    expect(JSON.stringify(unknown.body.errors)).toContain('mode');
  });

  it('a query of stop words or punctuation only finds nothing (and is no error)', async () => {
    expect(await searchTable(kit.api, helpCenter, 'the of and')).toEqual([]);
    expect(await searchTable(kit.api, helpCenter, '!!! ??? "" -')).toEqual([]);
  });
});
