import { newUuid } from '../../../../core';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, addRecords, createTable, searchTable, sql, waitForCurrentIndex } from './search-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

const contents = (hits: Array<{ values: Record<string, unknown> }>) => hits.map((hit) => hit.values.text);

/** Writes records behind the index's back, as a bulk import does (values by storage key). */
async function insertRaw(table: string, texts: string[]): Promise<string[]> {
  const [column] = await sql(kit, `select key from data_table_columns where table_uuid = ? and name = 'text'`, [table]);
  const uuids = texts.map(() => newUuid());
  for (const [index, text] of texts.entries()) {
    await sql(kit, `insert into data_table_records (uuid, tenant_uuid, created_at, updated_at, table_uuid, "values") values (?, ?, now(), now(), ?, ?::jsonb)`, [
      uuids[index],
      kit.tenant.uuid,
      table,
      JSON.stringify({ [column.key]: text }),
    ]);
  }
  await sql(kit, `update data_tables set index_status = 'stale' where uuid = ?`, [table]);
  return uuids;
}

describe('records written one at a time', () => {
  let table: string;
  beforeAll(async () => {
    table = await createTable(kit.api, 'Notes', [{ name: 'text', data_type: 'text' }]);
  });

  it('are searchable at once, with no sync, and the index stays current', async () => {
    const [uuid] = await addRecords(kit.api, table, [{ text: 'The xylophone lessons start in March' }]);
    expect((await searchTable(kit.api, table, 'xylophone')).map((hit) => hit.record_uuid)).toEqual([uuid]);
    // Its new words join the vocabulary at once, so a misspelling finds it too.
    expect((await searchTable(kit.api, table, 'xylofone')).map((hit) => hit.record_uuid)).toEqual([uuid]);
    expect((await kit.api.get(`/api/v1/data/${table}`).expect(200)).body.data.index.status).toBe('current');
  });

  it('are found by their new values after an update, not by the old ones', async () => {
    const [uuid] = await addRecords(kit.api, table, [{ text: 'Bring a trombone' }]);
    await kit.api.put(`/api/v1/data/${table}/records/${uuid}`).send({ values: { text: 'Bring a clarinet' } }).expect(200);
    expect(contents(await searchTable(kit.api, table, 'clarinet'))).toEqual(['Bring a clarinet']);
    expect(await searchTable(kit.api, table, 'trombone')).toEqual([]);
  });

  it('are no longer found once deleted, and leave no entry behind', async () => {
    const [uuid] = await addRecords(kit.api, table, [{ text: 'The harpsichord is out of tune' }]);
    await kit.api.delete(`/api/v1/data/${table}/records/${uuid}`).expect(200);
    expect(await searchTable(kit.api, table, 'harpsichord')).toEqual([]);
    expect(await sql(kit, 'select uuid from data_table_search_entries where uuid = ?', [uuid])).toEqual([]);
  });
});

describe('the vocabulary (where typos are corrected)', () => {
  it('holds the words of letters only: no numbers, dates, e-mail addresses or urls', async () => {
    const table = await createTable(kit.api, 'Orders', [
      { name: 'note', data_type: 'text' },
      { name: 'email', data_type: 'text' },
      { name: 'link', data_type: 'url' },
      { name: 'amount', data_type: 'number' },
      { name: 'day', data_type: 'date' },
      { name: 'paid', data_type: 'boolean' },
    ]);
    await addRecords(kit.api, table, [{ note: 'Order shipped to Lisbon', email: 'ada.novak1@example.com', link: 'https://shop.example.com/orders/1', amount: 12.5, day: '2024-03-01', paid: true }]);
    const words = async () => (await sql(kit, 'select word, ndoc from data_table_search_words where table_uuid = ? order by word', [table])).map((row) => row.word);
    expect(await words()).toEqual(['lisbon', 'order', 'shipped', 'true']);
    await kit.api.post(`/api/v1/data/${table}/sync`).expect(200);
    await waitForCurrentIndex(kit.api, table);
    expect(await words()).toEqual(['lisbon', 'order', 'shipped', 'true']);
    // The rest is still found, exactly.
    expect(await searchTable(kit.api, table, 'ada.novak1@example.com')).toHaveLength(1);
    expect(await searchTable(kit.api, table, '2024')).toHaveLength(1);
  });
});

describe('POST /api/v1/data/{uuid}/sync', () => {
  it('marks the index syncing, and the job rebuilds it from the records: bulk-written ones become searchable', async () => {
    const table = await createTable(kit.api, 'Imported', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, table, [{ text: 'Written through the API' }]);
    await insertRaw(table, ['Bulk row about saxophones', 'Bulk row about accordions']);
    expect(await searchTable(kit.api, table, 'saxophones')).toEqual([]);

    const res = await kit.api.post(`/api/v1/data/${table}/sync`).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Index sync queued', data: { table_uuid: table, index: { status: 'syncing', indexed_at: null } } });
    const index = await waitForCurrentIndex(kit.api, table);
    expect(Date.parse(index.indexed_at!)).not.toBeNaN();
    expect(contents(await searchTable(kit.api, table, 'saxophones'))).toEqual(['Bulk row about saxophones']);
    expect(contents(await searchTable(kit.api, table, 'acordions'))).toEqual(['Bulk row about accordions']);
    expect(contents(await searchTable(kit.api, table, 'api'))).toEqual(['Written through the API']);
  });

  it('drops the entries of records deleted behind its back and re-reads changed ones, and recounts the vocabulary', async () => {
    const table = await createTable(kit.api, 'Changing', [{ name: 'text', data_type: 'text' }]);
    const [kept, changed, gone] = await addRecords(kit.api, table, [{ text: 'violin strings' }, { text: 'cello strings' }, { text: 'banjo strings' }]);
    const [column] = await sql(kit, `select key from data_table_columns where table_uuid = ?`, [table]);
    await sql(kit, `update data_table_records set "values" = ?::jsonb, updated_at = now() where uuid = ?`, [JSON.stringify({ [column.key]: 'tuba mouthpiece' }), changed]);
    await sql(kit, `delete from data_table_records where uuid = ?`, [gone]);

    await kit.api.post(`/api/v1/data/${table}/sync`).expect(200);
    await waitForCurrentIndex(kit.api, table);
    expect((await searchTable(kit.api, table, 'strings')).map((hit) => hit.record_uuid)).toEqual([kept]);
    expect((await searchTable(kit.api, table, 'tuba')).map((hit) => hit.record_uuid)).toEqual([changed]);
    expect(await sql(kit, 'select uuid from data_table_search_entries where uuid = ?', [gone])).toEqual([]);
    const words = await sql(kit, 'select word, ndoc from data_table_search_words where table_uuid = ? order by word', [table]);
    expect(words).toEqual([
      { word: 'mouthpiece', ndoc: 1 },
      { word: 'strings', ndoc: 1 },
      { word: 'tuba', ndoc: 1 },
      { word: 'violin', ndoc: 1 },
    ]);
  });

  it('rebuilds the vectors when the table’s language changes, though no document did', async () => {
    const table = await createTable(kit.api, 'Language', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, table, [{ text: 'running shoes for the marathons' }]);
    const tsv = async () => (await sql(kit, 'select tsv::text as tsv from data_table_search_entries where table_uuid = ?', [table]))[0].tsv;
    expect(await tsv()).toBe("'marathon':5 'run':1 'shoe':2");
    await kit.api.patch(`/api/v1/data/${table}`).send({ search_language: 'simple' }).expect(200);
    await waitForCurrentIndex(kit.api, table);
    expect(await tsv()).toBe("'for':3 'marathons':5 'running':1 'shoes':2 'the':4");
  });

  it('leaves a deleted column’s values out of the documents (the deletion queues the sync)', async () => {
    const table = await createTable(kit.api, 'Columns', [
      { name: 'text', data_type: 'text' },
      { name: 'secret', data_type: 'text' },
    ]);
    await addRecords(kit.api, table, [{ text: 'public words', secret: 'hidden passphrase' }]);
    expect(contents(await searchTable(kit.api, table, 'passphrase'))).toEqual(['public words']);
    const fields = (await kit.api.get(`/api/v1/data/${table}/fields`).expect(200)).body.data.fields as Array<{ uuid: string; name: string }>;
    await kit.api.delete(`/api/v1/data/${table}/fields/${fields.find((field) => field.name === 'secret')!.uuid}`).expect(200);
    await waitForCurrentIndex(kit.api, table);
    expect(await searchTable(kit.api, table, 'passphrase')).toEqual([]);
    const [hit] = await searchTable(kit.api, table, 'public');
    expect(hit.values).toEqual({ text: 'public words' });
    expect(hit.snippet).toBe('<b>public</b> words');
  });

  it('runs after an import, which queues it: the imported rows become searchable without asking', async () => {
    const queued = await kit.api
      .post('/api/v1/data/import/copypaste')
      .send({ name: 'Pasted', text: 'title,body\nOboe reeds,Soak them before playing\nFlute care,Dry the flute after use' })
      .expect(202);
    const table: string = queued.body.data.table_uuid;
    const deadline = Date.now() + 15_000;
    while ((await kit.api.get(`/api/v1/data/imports/${queued.body.data.uuid}`).expect(200)).body.data.status !== 'completed') {
      if (Date.now() > deadline) throw new Error('import did not complete');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitForCurrentIndex(kit.api, table);
    const [hit] = await searchTable(kit.api, table, 'oboe');
    expect(hit.values).toEqual({ title: 'Oboe reeds', body: 'Soak them before playing' });
  });

  it('answers from the entries it has while the index is stale', async () => {
    const table = await createTable(kit.api, 'Stale', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, table, [{ text: 'indexed mandolin' }]);
    await insertRaw(table, ['unindexed mandolin']);
    expect((await kit.api.get(`/api/v1/data/${table}`).expect(200)).body.data.index.status).toBe('stale');
    expect(contents(await searchTable(kit.api, table, 'mandolin'))).toEqual(['indexed mandolin']);
  });

  it('answers 404 for an unknown table or another tenant’s', async () => {
    const table = await createTable(kit.api, 'Mine', []);
    const stranger = await kit.createTenant();
    const res = await stranger.api.post(`/api/v1/data/${table}/sync`).expect(404);
    expect(res.body).toEqual({ success: false, message: 'Data not found', data: [expect.any(String)] });
    expect((await kit.api.get(`/api/v1/data/${table}`).expect(200)).body.data.index.status).toBe('current');
  });
});
