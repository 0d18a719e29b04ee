import { Type } from '../../core';
import { defineAction } from '../flows';
import { columnLetter, firstRowOf, rangeIn } from './a1';
import { googleSheetsAuth } from './auth';
import { sheetsApi } from './client';
import { googleSheetsDeps } from './deps';
import { CellValues, ColumnKey, SpreadsheetId, WorksheetTitle } from './inputs';
import { cellValue, columnNamed, openWorksheet, rowObject, rowsRange, scanRows, type Worksheet } from './worksheet';

export const ROW_SAMPLE = { row_number: 7, values: { Name: 'Ada Lovelace', Email: 'ada@example.com', Visits: '3' } };

export const FIND_LIMIT_DEFAULT = 100;
export const FIND_LIMIT_MAX = 1000;

const WHERE = { spreadsheet_id: SpreadsheetId, worksheet_title: WorksheetTitle };

/** The cells of `values` by column index, every key checked against the header row first (nothing written when one is unknown). */
function cellsByColumn(sheet: Worksheet, values: Record<string, string | number | boolean | null>): Map<number, string | number | boolean> {
  return new Map(Object.entries(values).map(([key, value]) => [columnNamed(sheet, key).index, cellValue(value)]));
}

/** The first row below the header whose cell in `column` is exactly `value` (as the sheet shows it), or null. */
async function findFirst(api: ReturnType<typeof sheetsApi>, sheet: Worksheet, columnIndex: number, value: string) {
  for await (const row of scanRows(api, sheet, 2)) if ((row.cells[columnIndex] ?? '') === value) return row;
  return null;
}

const addRow = defineAction({
  auth: googleSheetsAuth,
  deps: googleSheetsDeps,
  key: 'add_row',
  name: 'Add row',
  description:
    'Adds a row after the last row of the worksheet’s table, with `values` by column header (columns left out stay empty). ' +
    'The output is the new row’s number and its values by header.',
  input: Type.Object({ ...WHERE, values: CellValues('Cell values by column header (see the `columns` list), such as {"Email": "{{step1.email}}"}') }, { additionalProperties: false }),
  outputSample: { ...ROW_SAMPLE, range: "'Leads'!A7:C7" },
  async run(context) {
    const { input } = context;
    const api = sheetsApi(context);
    const sheet = await openWorksheet(api, input.spreadsheet_id, input.worksheet_title);
    const cells = cellsByColumn(sheet, input.values);
    // The row in header order, as wide as its last given column: the append writes from column A.
    const width = Math.max(...cells.keys()) + 1;
    const row = Array.from({ length: width }, (_, index) => cells.get(index) ?? '');
    const answer = await api.append(sheet.spreadsheetId, rangeIn(sheet.title, `A:${columnLetter(sheet.columns.length - 1)}`), row);
    const range = answer.updates?.updatedRange ?? null;
    return { row_number: range ? firstRowOf(range) : null, range, values: rowObject(sheet.columns, row.map(String)) };
  },
});

const updateRow = defineAction({
  auth: googleSheetsAuth,
  deps: googleSheetsDeps,
  key: 'update_row',
  name: 'Update row',
  description:
    'Finds the first row whose `lookup_column` cell is exactly `lookup_value` (as the sheet shows it) and writes `values` into its columns, keeping its other cells. ' +
    'The output is the row afterwards (`updated: true`), or `updated: false` with no row when none matched: nothing is written then.',
  input: Type.Object(
    {
      ...WHERE,
      lookup_column: ColumnKey('The column that identifies the row, by header'),
      lookup_value: Type.String({ maxLength: 50000, description: 'The text the row’s lookup cell must show exactly, such as {{step1.email}}' }),
      values: CellValues('The cells to change, by column header'),
    },
    { additionalProperties: false },
  ),
  outputSample: { updated: true, ...ROW_SAMPLE, values: { ...ROW_SAMPLE.values, Visits: '4' } },
  async run(context) {
    const { input, idempotencyKey } = context;
    const api = sheetsApi(context);
    const sheet = await openWorksheet(api, input.spreadsheet_id, input.worksheet_title);
    const lookup = columnNamed(sheet, input.lookup_column);
    const cells = cellsByColumn(sheet, input.values);
    const found = await findFirst(api, sheet, lookup.index, input.lookup_value);
    if (!found) return { updated: false, row_number: null, values: null };
    const data = [...cells].map(([index, value]) => ({ range: rangeIn(sheet.title, `${columnLetter(index)}${found.rowNumber}`), values: [[value]] }));
    await api.write(sheet.spreadsheetId, data, idempotencyKey);
    // Read back: what the sheet shows (a formula's result), with the cells left as they were.
    const [after = []] = await api.read(sheet.spreadsheetId, rowsRange(sheet, found.rowNumber, found.rowNumber));
    return { updated: true, row_number: found.rowNumber, values: rowObject(sheet.columns, after) };
  },
});

const findRows = defineAction({
  auth: googleSheetsAuth,
  deps: googleSheetsDeps,
  key: 'find_rows',
  name: 'Find rows',
  description:
    'The rows below the header whose `column` cell is exactly `value` (as the sheet shows it), top to bottom, each with its row number and its values by header. ' +
    '`truncated` says more rows matched than `limit`.',
  input: Type.Object(
    {
      ...WHERE,
      column: ColumnKey('The column to compare, by header'),
      value: Type.String({ maxLength: 50000, description: 'The text the cell must show exactly; "" finds rows whose cell is empty' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FIND_LIMIT_MAX, default: FIND_LIMIT_DEFAULT, description: `Most rows returned (default ${FIND_LIMIT_DEFAULT})` })),
    },
    { additionalProperties: false },
  ),
  outputSample: { rows: [ROW_SAMPLE], count: 1, truncated: false },
  async run(context) {
    const { input } = context;
    const limit = input.limit ?? FIND_LIMIT_DEFAULT;
    const api = sheetsApi(context);
    const sheet = await openWorksheet(api, input.spreadsheet_id, input.worksheet_title);
    const column = columnNamed(sheet, input.column);
    const rows: Array<{ row_number: number; values: Record<string, string> }> = [];
    let truncated = false;
    for await (const row of scanRows(api, sheet, 2)) {
      if ((row.cells[column.index] ?? '') !== input.value) continue;
      if (rows.length === limit) {
        truncated = true;
        break;
      }
      rows.push({ row_number: row.rowNumber, values: rowObject(sheet.columns, row.cells) });
    }
    return { rows, count: rows.length, truncated };
  },
});

export const rowActions = [addRow, updateRow, findRows];
