import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EXPORT_COLUMNS, ExportPageWriter } from '../../../../plugins/conversations/export/export-page-json';
import { ExportPageSchema } from '../../../../plugins/conversations/export/export-schemas';
import type { CursorPosition } from '../../../../plugins/conversations/export/export-cursor';
import { isoFromUtcTimestamp } from '../../../../plugins/conversations/export/export-instant';

/**
 * The transcoder alone, on COPY text written here by PostgreSQL's rules
 * (CopyAttributeOutText). The route tests (message-export.test.ts) run it on what a
 * real PostgreSQL sends, awkward text included.
 */

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A value as COPY's text format writes it. */
const copyValue = (value: string | null) =>
  value === null
    ? '\\N'
    : value.replace(/[\\\b\f\n\r\t\v]/g, (c) => `\\${({ '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v' } as Record<string, string>)[c]}`);

type Row = Array<string | null>;

function row(n: number, overrides: Record<number, string | null> = {}): Row {
  const values: Row = [uuid(n), uuid(100 + n), uuid(200 + n), uuid(300 + n), uuid(400 + n), 'chat', 'Line 1', 'customer', 'text', `message ${n}`, '2024-05-01 10:00:00.123'];
  for (const [index, value] of Object.entries(overrides)) values[Number(index)] = value;
  return values;
}

/** The rows as PostgreSQL sends them: one COPY line each. */
const copyRows = (rows: Row[]) => rows.map((values) => Buffer.from(`${values.map(copyValue).join('\t')}\n`));

/** A page written from these rows, fed one at a time as copyOut does; its text, and its buffer given back. */
function exportPageJson(rows: Buffer[], limit: number, nextCursor: (last: CursorPosition) => string) {
  const writer = new ExportPageWriter(limit, nextCursor);
  for (const row of rows) writer.row(row);
  const page = writer.end();
  const json = page.json.toString('utf8');
  page.release();
  return { ...page, json };
}

/** What the route wrote before it transcoded: objects, then JSON.stringify. */
function stringified(rows: Row[], instants: string[], pagination: { next_cursor: string | null; has_more: boolean; limit: number }): string {
  const messages = rows.map((values, index) => Object.fromEntries(EXPORT_COLUMNS.map((name, column) => [name, column === 10 ? instants[index] : values[column]])));
  return JSON.stringify({ meta: {}, messages, pagination });
}

const noCursor = () => {
  throw new Error('no next page expected');
};

/** Strings JSON must escape, or that a byte-level writer easily gets wrong. */
const AWKWARD = ['say "hi"', 'back\\slash', 'line\nbreak\ttab\rcr', 'bs\b ff\f vt\v', 'bell\u0007 esc\u001b del\u007f', 'emoji 👋 and é, ünï', 'line\u2028separator', '\\N', 'N', '</script>', '', '***', '{"json":[1,2]}'];

describe('exportPageJson', () => {
  it('writes exactly what JSON.stringify writes, for awkward text in every text member', () => {
    const rows = AWKWARD.flatMap((text, n) => [row(n, { 9: text }), row(50 + n, { 5: text, 6: text, 7: text, 8: text })]);
    const page = exportPageJson(copyRows(rows), rows.length, noCursor);
    const text = page.json;
    expect(text).toBe(stringified(rows, rows.map(() => '2024-05-01T10:00:00.123Z'), { next_cursor: null, has_more: false, limit: rows.length }));
    expect(JSON.parse(text).messages.map((message: { content: string }) => message.content).filter((_: string, index: number) => index % 2 === 0)).toEqual(AWKWARD);
    expect(page).toMatchObject({ rows: rows.length, hasMore: false });
  });

  it('writes null for a missing contact and label, and the instants as the API writes them', () => {
    const rows = [row(1, { 3: null, 6: null, 10: '2024-05-01 10:00:00' }), row(2, { 10: '2024-05-01 10:00:00.5' }), row(3, { 10: '2024-05-01 10:00:00.1234' }), row(4, { 10: '2024-05-01 10:00:00.123456' })];
    const page = JSON.parse(exportPageJson(copyRows(rows), 4, noCursor).json);
    expect(page.messages[0]).toMatchObject({ contact_uuid: null, channel_label: null });
    expect(page.messages.map((message: { created_at: string }) => message.created_at)).toEqual([
      '2024-05-01T10:00:00.000Z',
      '2024-05-01T10:00:00.500Z',
      '2024-05-01T10:00:00.123400Z',
      '2024-05-01T10:00:00.123456Z',
    ]);
  });

  it('writes every instant as isoFromUtcTimestamp does (the byte writer is its twin), odd shapes included', () => {
    const instants = ['2024-05-01 10:00:00', ...[1, 2, 3, 4, 5, 6].map((digits) => `2024-05-01 10:00:00.${'987654'.slice(0, digits)}`), '0044-03-15 12:00:00 BC', '10000-01-01 00:00:00'];
    const rows = instants.map((instant, index) => row(index, { 10: instant }));
    const page = JSON.parse(exportPageJson(copyRows(rows), rows.length, noCursor).json);
    expect(page.messages.map((message: { created_at: string }) => message.created_at)).toEqual(instants.map(isoFromUtcTimestamp));
  });

  it('keeps `limit` rows and hands the last one`s exact position to the cursor when one more row came', () => {
    const rows = [row(1), row(2, { 10: '2024-05-01 10:00:00.123456' }), row(3)];
    const positions: CursorPosition[] = [];
    const page = exportPageJson(copyRows(rows), 2, (last) => {
      positions.push(last);
      return 'next-page';
    });
    expect(page).toMatchObject({ rows: 2, hasMore: true });
    expect(positions).toEqual([{ uuid: uuid(2), createdAt: '2024-05-01T10:00:00.123456Z' }]);
    const body = JSON.parse(page.json);
    expect(body.messages.map((message: { message_uuid: string }) => message.message_uuid)).toEqual([uuid(1), uuid(2)]);
    expect(body.pagination).toEqual({ next_cursor: 'next-page', has_more: true, limit: 2 });
  });

  it('writes an empty page', () => {
    expect(JSON.parse(exportPageJson([], 500, noCursor).json)).toEqual({ meta: {}, messages: [], pagination: { next_cursor: null, has_more: false, limit: 500 } });
  });

  it('keeps pages written at the same time apart', () => {
    const first = new ExportPageWriter(3, noCursor);
    const second = new ExportPageWriter(3, noCursor);
    const [a, b] = [copyRows([row(1), row(2), row(3)]), copyRows([row(4, { 9: 'x'.repeat(200_000) }), row(5), row(6)])];
    for (let index = 0; index < 3; index++) {
      first.row(a[index]);
      second.row(b[index]);
    }
    const uuids = (page: { json: Buffer }) => JSON.parse(page.json.toString()).messages.map((message: { message_uuid: string }) => message.message_uuid);
    expect(uuids(first.end())).toEqual([uuid(1), uuid(2), uuid(3)]);
    const secondPage = second.end();
    expect(uuids(secondPage)).toEqual([uuid(4), uuid(5), uuid(6)]);
    expect(JSON.parse(secondPage.json.toString()).messages[0].content).toHaveLength(200_000);
  });

  it('leaves a page`s bytes alone until they are released, however many pages are written meanwhile', () => {
    const write = (n: number) => {
      const writer = new ExportPageWriter(2, noCursor);
      for (const copyRow of copyRows([row(n, { 9: `page ${n}` }), row(n + 1)])) writer.row(copyRow);
      return writer.end();
    };
    const lent = write(1);
    const before = Buffer.from(lent.json);
    for (let n = 10; n < 100; n += 10) write(n).release();
    expect(lent.json.equals(before)).toBe(true);
    lent.release();
  });

  it('matches the schema the OpenAPI document publishes', () => {
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const validate = ajv.compile(ExportPageSchema);
    const page = JSON.parse(exportPageJson(copyRows([row(1), row(2, { 3: null, 6: null }), row(3)]), 2, () => 'x').json);
    expect(validate(page) ? [] : validate.errors).toEqual([]);
  });
});
