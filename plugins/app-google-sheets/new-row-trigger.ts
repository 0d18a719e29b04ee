import { Type } from '../../core';
import { defineTrigger } from '../flows';
import { googleSheetsAuth } from './auth';
import { sheetsApi, type SheetsApi } from './client';
import { googleSheetsDeps } from './deps';
import { SpreadsheetId, WorksheetTitle } from './inputs';
import { ROW_SAMPLE } from './row-actions';
import { isBlank, lastFilledRow, openWorksheet, rowObject, rowsRange, type Worksheet } from './worksheet';

/** The engine's cap on events a poll may return (poll-triggers.ts): rows are read in blocks this tall. */
export const ROWS_PER_POLL = 500;

/** Where the last poll stopped: the last row it saw of one worksheet. */
interface RowCursor {
  spreadsheet_id: string;
  worksheet_title: string;
  /** The row number of the last row seen (1, the header row, when the worksheet had no data). */
  row: number;
}

/** The cursor, when it is one this trigger wrote for this very worksheet; null (take a new baseline) otherwise. */
function cursorFor(cursor: unknown, input: { spreadsheet_id: string; worksheet_title: string }): RowCursor | null {
  if (typeof cursor !== 'object' || cursor === null) return null;
  const { spreadsheet_id, worksheet_title, row } = cursor as Partial<RowCursor>;
  if (spreadsheet_id !== input.spreadsheet_id || worksheet_title !== input.worksheet_title) return null;
  return typeof row === 'number' && Number.isInteger(row) && row >= 1 ? { spreadsheet_id, worksheet_title, row } : null;
}

const cursorAt = (sheet: Worksheet, row: number): RowCursor => ({ spreadsheet_id: sheet.spreadsheetId, worksheet_title: sheet.title, row: Math.max(1, row) });

/** The rows after the cursor, blank ones skipped, at most ROWS_PER_POLL: the first block that has any, else the rest of the sheet past a long gap. */
async function rowsAfter(api: SheetsApi, sheet: Worksheet, after: number): Promise<{ rows: Array<{ rowNumber: number; cells: string[] }>; cursorRowBlank: boolean }> {
  // The block starts at the cursor's own row, to see whether it was cleared or deleted; it ends within the grid (a range past it is refused).
  const block = await api.read(sheet.spreadsheetId, rowsRange(sheet, after, Math.min(after + ROWS_PER_POLL, sheet.rowCount)));
  const cursorRowBlank = isBlank(block[0] ?? []);
  let rows = block.slice(1).map((cells, offset) => ({ rowNumber: after + 1 + offset, cells }));
  if (!rows.some((row) => !isBlank(row.cells)) && after + ROWS_PER_POLL < sheet.rowCount) {
    // Nothing in the next block: a row typed far below still counts. Open-ended, so this answers nothing when nothing is there.
    const start = after + ROWS_PER_POLL + 1;
    rows = (await api.read(sheet.spreadsheetId, rowsRange(sheet, start))).map((cells, offset) => ({ rowNumber: start + offset, cells }));
  }
  return { rows: rows.filter((row) => !isBlank(row.cells)).slice(0, ROWS_PER_POLL), cursorRowBlank };
}

const newRow = defineTrigger({
  auth: googleSheetsAuth,
  deps: googleSheetsDeps,
  key: 'new_row',
  name: 'New row',
  description:
    'Starts the flow once for each row that appears below the last row of the worksheet, checked every minute; rows there when the flow is deployed do not start it. ' +
    'The output is the row’s number and its values by column header. A row is taken as soon as any of its cells is filled: add rows whole (a form, a paste, `add_row`). ' +
    'Rows deleted from the bottom lower the mark, and later rows count again from there.',
  input: Type.Object({ spreadsheet_id: SpreadsheetId, worksheet_title: WorksheetTitle }, { additionalProperties: false }),
  outputSample: { ...ROW_SAMPLE, spreadsheet_id: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms', worksheet_title: 'Leads' },
  poll: {
    intervalSeconds: 60,
    async run(context, cursor) {
      const { input } = context;
      const api = sheetsApi(context);
      const sheet = await openWorksheet(api, input.spreadsheet_id, input.worksheet_title);
      const previous = cursorFor(cursor, input);
      // First poll (or another worksheet): the rows there now are the baseline, not events.
      if (!previous) return { events: [], cursor: cursorAt(sheet, await lastFilledRow(api, sheet, sheet.rowCount)) };

      // The grid lost rows below the mark (deleted): new rows count from the last filled one.
      if (previous.row > sheet.rowCount) return { events: [], cursor: cursorAt(sheet, await lastFilledRow(api, sheet, sheet.rowCount)) };
      const { rows, cursorRowBlank } = await rowsAfter(api, sheet, previous.row);
      if (rows.length === 0) {
        // The last row seen is empty and nothing follows: rows were deleted or cleared at the bottom; new rows count from the last filled one.
        if (cursorRowBlank && previous.row > 1) return { events: [], cursor: cursorAt(sheet, await lastFilledRow(api, sheet, previous.row)) };
        return { events: [], cursor: previous };
      }
      const events = rows.map((row) => ({
        row_number: row.rowNumber,
        values: rowObject(sheet.columns, row.cells),
        spreadsheet_id: sheet.spreadsheetId,
        worksheet_title: sheet.title,
      }));
      return { events, cursor: cursorAt(sheet, rows[rows.length - 1].rowNumber) };
    },
  },
});

export const rowTriggers = [newRow];
