import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { TABLE_TOPICS } from '../../../../plugins/tables';
import { fixtures } from '../../../../plugins/tables/imports/testing-fixtures';
import { busProbe, eventually } from '../records/record-test-helpers';
import { AGENTS, TABLES, columnsOf, finished, paste, rowsOf, upload, uploadRequest } from './import-test-kit';

const probe = busProbe();
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, probe.plugin] });
});
afterAll(() => kit?.stop());

describe('POST /api/v1/data/import/copypaste', () => {
  it('answers 202 with the queued import, which creates a table and completes', async () => {
    const text = 'name,price\nwidget,3\ngadget,4.5\n';
    const res = await kit.api.post('/api/v1/data/import/copypaste').send({ text, name: 'Products' }).expect(202);
    expect(res.body.data).toMatchObject({ source: 'copypaste', format: 'csv', status: 'queued', rows_imported: 0, errors: [], message: null });
    expect(res.body.data.progress).toEqual({ done: 0, total: text.length, unit: 'bytes' });

    const done = await finished(kit.api, res.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', rows_imported: 2, error_count: 0, errors: [], progress: { done: text.length, total: text.length, unit: 'bytes' } });
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    const table = await kit.api.get(`/api/v1/data/${done.table_uuid}`).expect(200);
    expect(table.body.data.name).toBe('Products');
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['name', 'text'],
      ['price', 'number'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { name: 'widget', price: 3 },
      { name: 'gadget', price: 4.5 },
    ]);
  });

  it('keeps columns named like Object.prototype members, values included', async () => {
    const text = '__proto__,constructor,toString\nx,y,z\n';
    const res = await kit.api.post('/api/v1/data/import/copypaste').send({ text, name: 'Prototype names' }).expect(202);
    const done = await finished(kit.api, res.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', rows_imported: 1 });
    const records = await kit.api.get(`/api/v1/data/${done.table_uuid}/records`).expect(200);
    // Parsed from text: an object literal would read `__proto__` as the prototype.
    expect(records.body.data.items.map((item: { values: unknown }) => item.values)).toEqual([JSON.parse('{"__proto__": "x", "constructor": "y", "toString": "z"}')]);
  });

  it('infers number, date, boolean, url and text columns from the data', async () => {
    const done = await paste(kit.api, {
      text: [
        'id,price,day,active,site,note',
        '1,3.5,2024-01-02,yes,https://a.example,hello',
        '2,-4,2024-02-29,no,http://b.example/x,',
        '3,,2024-03-01T10:00:00Z,TRUE,,world 42',
      ].join('\n'),
    });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['id', 'number'],
      ['price', 'number'],
      ['day', 'date'],
      ['active', 'boolean'],
      ['site', 'url'],
      ['note', 'text'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { id: 1, price: 3.5, day: '2024-01-02', active: true, site: 'https://a.example', note: 'hello' },
      { id: 2, price: -4, day: '2024-02-29', active: false, site: 'http://b.example/x', note: null },
      { id: 3, price: null, day: '2024-03-01T10:00:00.000Z', active: true, site: null, note: 'world 42' },
    ]);
  });

  it('detects semicolons, tabs and pipes; takes a given delimiter', async () => {
    const semicolon = await paste(kit.api, { text: 'name;price\nwidget;1,5\n' });
    expect(await rowsOf(kit.api, semicolon.table_uuid)).toEqual([{ name: 'widget', price: '1,5' }]);
    const tab = await paste(kit.api, { text: 'name\tnote\nwidget\ta, b\n' });
    expect(await rowsOf(kit.api, tab.table_uuid)).toEqual([{ name: 'widget', note: 'a, b' }]);
    const pipe = await paste(kit.api, { text: 'a|b\n1|2\n' });
    expect(await columnsOf(kit.api, pipe.table_uuid)).toEqual([
      ['a', 'number'],
      ['b', 'number'],
    ]);
    const given = await paste(kit.api, { text: 'a,b:c\n1,2:3\n', delimiter: ':' });
    expect(await rowsOf(kit.api, given.table_uuid)).toEqual([{ 'a,b': '1,2', c: 3 }]);
  });

  it('reads quoted fields with delimiters, doubled quotes and line breaks', async () => {
    const done = await paste(kit.api, { text: 'name,bio\n"Smith, J","line one\nline two"\n"O""Brien",plain\n' });
    expect(done).toMatchObject({ status: 'completed', rows_imported: 2, error_count: 0 });
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { name: 'Smith, J', bio: 'line one\nline two' },
      { name: 'O"Brien', bio: 'plain' },
    ]);
  });

  it('reports malformed rows with their numbers and imports the rest', async () => {
    const done = await paste(kit.api, { text: 'a,b,c\n1,2,3\n4,5\n6,7,8\n9,10,11,12\n13,14,15\n' });
    expect(done).toMatchObject({ status: 'completed', rows_imported: 3, error_count: 2 });
    expect(done.errors).toEqual([
      { row: 2, message: expect.stringContaining('Invalid Record Length: expect 3, got 2') },
      { row: 4, message: expect.stringContaining('Invalid Record Length: expect 3, got 4') },
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { a: 1, b: 2, c: 3 },
      { a: 6, b: 7, c: 8 },
      { a: 13, b: 14, c: 15 },
    ]);
  });

  it('reports a stray quote, and a quote left open takes the rest of the text with it', async () => {
    const done = await paste(kit.api, { text: 'a,b\n1,2\n3,"x"y\n5,6\n' });
    expect(done.status).toBe('completed');
    expect(done.errors[0]).toEqual({ row: 2, message: expect.stringContaining('Invalid Closing Quote') });
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([{ a: 1, b: 2 }]);
  });

  it('appends to a table: columns matched by name (case-insensitive), new ones added, bad cells reported', async () => {
    const table = await kit.api
      .post('/api/v1/data/tables')
      .send({
        name: 'Stock',
        columns: [
          { name: 'Name', data_type: 'text' },
          { name: 'price', data_type: 'number' },
        ],
      })
      .expect(201);
    const uuid = table.body.data.uuid;
    expect(await paste(kit.api, { text: 'Name,price\nbefore,1\n', table_uuid: uuid })).toMatchObject({ status: 'completed', rows_imported: 1 });

    const done = await paste(kit.api, { text: 'name,PRICE,color\nwidget,3,red\ngadget,cheap,blue\n', table_uuid: uuid, name: 'ignored' });
    expect(done).toMatchObject({ table_uuid: uuid, status: 'completed', rows_imported: 1, error_count: 1 });
    expect(done.errors).toEqual([{ row: 2, message: 'price: "cheap" is not a number' }]);
    expect(await columnsOf(kit.api, uuid)).toEqual([
      ['Name', 'text'],
      ['price', 'number'],
      ['color', 'text'],
    ]);
    expect(await rowsOf(kit.api, uuid)).toEqual([
      { Name: 'before', price: 1, color: null },
      { Name: 'widget', price: 3, color: 'red' },
    ]);
    const read = await kit.api.get(`/api/v1/data/${uuid}`).expect(200);
    expect(read.body.data.name).toBe('Stock');
  });

  it('marks the table’s search index stale and queues its sync', async () => {
    const done = await paste(kit.api, { text: 'a\n1\n' });
    await eventually(() => probe.seen.some((message) => message.topic === TABLE_TOPICS.indexSync && message.payload.table_uuid === done.table_uuid));
  });

  it('refuses empty text and a quote as delimiter (422), an unknown table (404)', async () => {
    const empty = await kit.api.post('/api/v1/data/import/copypaste').send({ text: ' \n ' }).expect(422);
    expect(empty.body.errors).toEqual({ text: ['must not be empty'] });
    const quote = await kit.api.post('/api/v1/data/import/copypaste').send({ text: 'a\n1', delimiter: '"' }).expect(422);
    expect(quote.body.errors).toHaveProperty('delimiter');
    const unknown = await kit.api.post('/api/v1/data/import/copypaste').send({ text: 'a\n1', table_uuid: '01a1fd82-2214-706b-8e4f-93c0a534f39a', extra: 1 }).expect(422);
    expect(unknown.body.errors).toHaveProperty('extra');
    const before = (await kit.api.get('/api/v1/data/tables').expect(200)).body.data.pagination.total;
    const missing = await kit.api.post('/api/v1/data/import/copypaste').send({ text: 'a\n1', table_uuid: '01a1fd82-2214-706b-8e4f-93c0a534f39a' }).expect(404);
    expect(missing.body).toMatchObject({ success: false, message: 'Data not found' });
    expect((await kit.api.get('/api/v1/data/tables').expect(200)).body.data.pagination.total).toBe(before);
  });
});

describe('POST /api/v1/data/import/file with CSV', () => {
  it('names the table after the file, keeps the name only as data, and reads TSV', async () => {
    const done = await upload(kit.api, 'name\tqty\nwidget\t3\n', 'stock list.tsv');
    expect(done).toMatchObject({ status: 'completed', source: 'file', format: 'csv', source_name: 'stock list.tsv', rows_imported: 1 });
    const table = await kit.api.get(`/api/v1/data/${done.table_uuid}`).expect(200);
    expect(table.body.data.name).toBe('stock list');
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([{ name: 'widget', qty: 3 }]);
  });

  it('uses only the last part of a file name that carries folders', async () => {
    const res = await uploadRequest(kit.api, 'a\n1\n', '../../etc/evil.csv').expect(202);
    expect(res.body.data.source_name).toBe('evil.csv');
    await finished(kit.api, res.body.data.uuid);
  });
});

describe('GET /api/v1/data/imports', () => {
  it('reads one import (404 for an unknown one) and lists them, filtered by table', async () => {
    const first = await paste(kit.api, { text: 'a\n1\n', name: 'Listed' });
    const second = await paste(kit.api, { text: 'a\n2\n', table_uuid: first.table_uuid });
    await kit.api.get('/api/v1/data/imports/01a1fd82-2214-706b-8e4f-93c0a534f39a').expect(404);

    const list = await kit.api.get(`/api/v1/data/imports?table_uuid=${first.table_uuid}`).expect(200);
    expect(list.body.data.items.map((item: { uuid: string }) => item.uuid)).toEqual([second.uuid, first.uuid]);
    expect(list.body.data.pagination).toMatchObject({ total: 2, current_page: 1 });
    const all = await kit.api.get('/api/v1/data/imports?per_page=1').expect(200);
    expect(all.body.data.items).toHaveLength(1);
    expect(all.body.data.pagination.total).toBeGreaterThan(2);
    await kit.api.get('/api/v1/data/imports?table_uuid=01a1fd82-2214-706b-8e4f-93c0a534f39a').expect(404);
  });

  it('has a sweep fixture that makes an import and its table', async () => {
    const ids = await fixtures['tables.import'](kit, kit);
    await kit.api.get(`/api/v1/data/imports/${ids['tables.import']}`).expect(200);
    await kit.api.get(`/api/v1/data/${ids['tables.table']}`).expect(200);
  });

  it('keeps imports to their tenant', async () => {
    const mine = await paste(kit.api, { text: 'a\n1\n' });
    const other = await kit.createTenant();
    await other.api.get(`/api/v1/data/imports/${mine.uuid}`).expect(404);
    const list = await other.api.get('/api/v1/data/imports').expect(200);
    expect(list.body.data.items).toEqual([]);
    await other.api.post('/api/v1/data/import/copypaste').send({ text: 'a\n1', table_uuid: mine.table_uuid }).expect(404);
  });
});
