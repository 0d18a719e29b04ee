import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, columnsOf, finished, rowsOf, upload, uploadRequest } from './import-test-kit';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

async function workbook(build: (book: ExcelJS.Workbook) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  build(book);
  return Buffer.from(await book.xlsx.writeBuffer());
}

function pdf(pages: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const document = new PDFDocument();
    const parts: Buffer[] = [];
    document.on('data', (part: Buffer) => parts.push(part));
    document.on('end', () => resolve(Buffer.concat(parts)));
    document.on('error', reject);
    pages.forEach((text, index) => {
      if (index > 0) document.addPage();
      document.text(text);
    });
    document.end();
  });
}

describe('Excel workbooks', () => {
  const people = () =>
    workbook((book) => {
      book.addWorksheet('Notes').addRow(['not', 'this']);
      const sheet = book.addWorksheet('People');
      sheet.addRow(['name', 'age', 'born', 'member', 'score']);
      sheet.addRow(['Ann', 31, new Date(Date.UTC(1990, 4, 2)), true, { formula: '2*3', result: 6 }]);
      sheet.addRow([{ richText: [{ text: 'Bo' }, { text: 'b' }] }, 40, new Date(Date.UTC(1983, 0, 15)), false, 7.5]);
      sheet.addRow(['Cy', null, null, null, null]);
    });

  it('imports the named sheet with typed cells (formulas by their result, rich text as text)', async () => {
    const done = await upload(kit.api, await people(), 'people.xlsx', { sheet: 'People' });
    expect(done).toMatchObject({ status: 'completed', format: 'xlsx', rows_imported: 3, error_count: 0 });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['name', 'text'],
      ['age', 'number'],
      ['born', 'date'],
      ['member', 'boolean'],
      ['score', 'number'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { name: 'Ann', age: 31, born: '1990-05-02', member: true, score: 6 },
      { name: 'Bob', age: 40, born: '1983-01-15', member: false, score: 7.5 },
      { name: 'Cy', age: null, born: null, member: null, score: null },
    ]);
  });

  it('takes the first sheet by default, and fails naming the sheets when the one asked for is missing', async () => {
    const first = await upload(kit.api, await people(), 'people.xlsx');
    expect(await rowsOf(kit.api, first.table_uuid)).toEqual([]);
    expect(await columnsOf(kit.api, first.table_uuid)).toEqual([
      ['not', 'text'],
      ['this', 'text'],
    ]);
    const missing = await upload(kit.api, await people(), 'people.xlsx', { sheet: 'Staff' });
    expect(missing).toMatchObject({ status: 'failed', rows_imported: 0, message: 'The workbook has no sheet named "Staff" (its sheets: "Notes", "People")' });
  });

  it('numbers bad rows as the sheet does when appending to a typed table', async () => {
    const table = await kit.api
      .post('/api/v1/data/tables')
      .send({ name: 'Ages', columns: [{ name: 'age', data_type: 'number' }] })
      .expect(201);
    const book = await workbook((b) => {
      const sheet = b.addWorksheet('Ages');
      sheet.addRow([]);
      sheet.addRow(['Age']);
      sheet.addRow([3]);
      sheet.addRow(['unknown']);
    });
    const done = await upload(kit.api, book, 'ages.xlsx', { table_uuid: table.body.data.uuid });
    expect(done).toMatchObject({ status: 'completed', rows_imported: 1, errors: [{ row: 4, message: 'age: "unknown" is not a number' }] });
  });
});

describe('JSON arrays of objects', () => {
  it('imports objects: members are columns, JSON types kept, nested values as json', async () => {
    const items = [
      { name: 'a', n: 1, ok: true, tags: ['x', 'y'], when: '2024-05-06' },
      { name: 'b', n: 2.5, ok: false, tags: [], when: null },
      { name: 'c', n: null, ok: true },
      'not an object',
    ];
    const done = await upload(kit.api, JSON.stringify(items), 'items.json');
    expect(done).toMatchObject({ status: 'completed', format: 'json', rows_imported: 3, errors: [{ row: 4, message: 'is not an object' }] });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['name', 'text'],
      ['n', 'number'],
      ['ok', 'boolean'],
      ['tags', 'json'],
      ['when', 'date'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { name: 'a', n: 1, ok: true, tags: ['x', 'y'], when: '2024-05-06' },
      { name: 'b', n: 2.5, ok: false, tags: [], when: null },
      { name: 'c', n: null, ok: true, tags: null, when: null },
    ]);
  });

  it('reports an object with members the first 1,000 did not have', async () => {
    const items: Array<Record<string, unknown>> = Array.from({ length: 1001 }, (_, index) => ({ id: index + 1 }));
    items.push({ id: 1002, surprise: true });
    const done = await upload(kit.api, JSON.stringify(items), 'many.json');
    expect(done).toMatchObject({ status: 'completed', rows_imported: 1001, error_count: 1, errors: [{ row: 1002, message: 'has members that are not columns: "surprise"' }] });
  });

  it('fails a broken array and leaves none of its rows behind', async () => {
    const rows = Array.from({ length: 4500 }, (_, index) => JSON.stringify({ id: index }));
    const done = await upload(kit.api, `[${rows.join(',')}, {"id": oops}]`, 'broken.json');
    expect(done.status).toBe('failed');
    expect(done.message).toMatch(/^Not a readable JSON array: /);
    expect(done.rows_imported).toBe(0);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([]);
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([]);
  });
});

describe('XML', () => {
  it('imports the repeated element under the root: child elements and @attributes as columns', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <catalog>
        <title>ignored: occurs once</title>
        <book id="1"><name>Dune &amp; more</name><price>9.5</price></book>
        <book id="2"><name>Emma</name><price>4</price></book>
        <book id="3"><name>Odd</name></book>
      </catalog>`;
    const done = await upload(kit.api, xml, 'catalog.xml');
    expect(done).toMatchObject({ status: 'completed', format: 'xml', rows_imported: 3 });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['name', 'text'],
      ['price', 'number'],
      ['@id', 'number'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { name: 'Dune & more', price: 9.5, '@id': 1 },
      { name: 'Emma', price: 4, '@id': 2 },
      { name: 'Odd', price: null, '@id': 3 },
    ]);
  });

  it('finds records through a wrapper element, or the element named by record_element', async () => {
    const xml = '<export><meta><tag>a</tag><tag>b</tag><tag>c</tag></meta><items><item><sku>x1</sku></item><item><sku>x2</sku></item></items></export>';
    const named = await upload(kit.api, xml, 'export.xml', { record_element: 'item' });
    expect(await rowsOf(kit.api, named.table_uuid)).toEqual([{ sku: 'x1' }, { sku: 'x2' }]);
    const wrapped = await upload(kit.api, '<export><items><item><sku>y</sku></item><item><sku>z</sku></item></items></export>', 'wrapped.xml');
    expect(await rowsOf(kit.api, wrapped.table_uuid)).toEqual([{ sku: 'y' }, { sku: 'z' }]);
    const missing = await upload(kit.api, xml, 'export.xml', { record_element: 'row' });
    expect(missing).toMatchObject({ status: 'failed', message: 'The XML has no <row> elements' });
  });

  it('fails XML that is not well-formed', async () => {
    const done = await upload(kit.api, '<rows><row><a>1</a></row><row><a>2</row></rows>', 'bad.xml');
    expect(done.status).toBe('failed');
    expect(done.message).toMatch(/^Not well-formed XML: /);
  });
});

describe('PDF', () => {
  it('imports the text of each page in chunks: columns page and content', async () => {
    const sentence = 'The warehouse in Lyon ships orders every weekday before noon. ';
    const done = await upload(kit.api, await pdf([sentence.repeat(30), 'Returns are accepted within thirty days.']), 'handbook.pdf');
    expect(done).toMatchObject({ status: 'completed', format: 'pdf', error_count: 0 });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['page', 'number'],
      ['content', 'text'],
    ]);
    const rows = await rowsOf(kit.api, done.table_uuid);
    expect(done.rows_imported).toBe(rows.length);
    const first = rows.filter((row) => row.page === 1);
    expect(first.length).toBeGreaterThan(1);
    for (const row of first) expect((row.content as string).length).toBeLessThanOrEqual(1000);
    expect(first.map((row) => row.content).join(' ')).toContain('The warehouse in Lyon ships orders');
    expect(rows.filter((row) => row.page === 2)).toEqual([{ page: 2, content: 'Returns are accepted within thirty days.' }]);
  });
});

describe('content checks', () => {
  const expectFileError = async (request: ReturnType<typeof uploadRequest>, message: string | RegExp) => {
    const res = await request.expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['file']);
    if (typeof message === 'string') expect(res.body.errors.file).toEqual([message]);
    else expect(res.body.errors.file[0]).toMatch(message);
  };

  it('refuses audio until a transcription provider exists', async () => {
    const mp3 = Buffer.concat([Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000'), Buffer.alloc(64, 0x55)]);
    await expectFileError(uploadRequest(kit.api, mp3, 'voice.mp3'), 'audio import needs a transcription provider');
    const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(64)]);
    await expectFileError(uploadRequest(kit.api, wav, 'call.csv'), 'audio import needs a transcription provider');
  });

  it('refuses a file whose declared format the content contradicts', async () => {
    await expectFileError(uploadRequest(kit.api, 'a,b\n1,2\n', 'report.pdf'), 'is declared as pdf (by its name) but its content is CSV text');
    await expectFileError(uploadRequest(kit.api, 'a,b\n1,2\n', 'data.csv', { format: 'xlsx' }), 'is declared as xlsx (by the format field) but its content is CSV text');
    await expectFileError(uploadRequest(kit.api, await pdf(['x']), 'table.xlsx'), /declared as xlsx .* content is a PDF document/);
  });

  it('refuses binary junk, empty files and JSON that is not an array', async () => {
    await expectFileError(uploadRequest(kit.api, Buffer.from([0x00, 0x01, 0x02, 0x8f, 0x00, 0x41]), 'blob.bin'), /^is binary data, not a supported file/);
    await expectFileError(uploadRequest(kit.api, Buffer.from('PK\u0003\u0004 word/document.xml'), 'letter.zip'), /^is a zip archive, not a supported file/);
    await expectFileError(uploadRequest(kit.api, '', 'empty.csv'), 'is empty');
    await expectFileError(uploadRequest(kit.api, '{"a": 1}', 'object.json'), /^is a JSON object/);
  });

  it('refuses an unknown format value and unknown fields', async () => {
    const res = await uploadRequest(kit.api, 'a\n1\n', 'a.csv', { format: 'docx', colour: 'red' }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['colour', 'format']);
  });

  it('an unknown table is a 404 and stores nothing', async () => {
    const res = await uploadRequest(kit.api, 'a\n1\n', 'a.csv', { table_uuid: '01a1fd82-2214-706b-8e4f-93c0a534f39a' }).expect(404);
    expect(res.body).toMatchObject({ success: false, message: 'Data not found' });
    const chunks = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from data_table_import_chunks');
    expect(chunks[0].n).toBe(0);
  });

  it('deletes the stored content once the import is done', async () => {
    const res = await uploadRequest(kit.api, 'a\n1\n', 'a.csv').expect(202);
    await finished(kit.api, res.body.data.uuid);
    const chunks = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from data_table_import_chunks where import_uuid = ?', [res.body.data.uuid]);
    expect(chunks[0].n).toBe(0);
  });
});
