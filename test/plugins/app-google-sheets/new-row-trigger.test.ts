import { googleSheetsApp } from '../../../plugins/app-google-sheets';
import { runAction, runTrigger } from '../../../plugins/flows/testing-kit';
import { requestsTo, useSheetsTest } from './google-sheets-test-kit';

const t = useSheetsTest();

const TITLE = 'Form responses';

function sheetWith(rows: string[][]) {
  const spreadsheet = t.google.addSpreadsheet('Form', { [TITLE]: [['Name', 'Email'], ...rows] });
  return { spreadsheet, input: { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE }, cells: () => t.google.worksheet(spreadsheet.id, TITLE).cells };
}

const poll = (input: Record<string, unknown>, cursor: unknown) => runTrigger(googleSheetsApp, 'new_row', input, { ...t.call(), cursor });

describe('new_row', () => {
  it('takes the rows there at the first poll as the baseline, then starts once per new row, never twice', async () => {
    const sheet = sheetWith([['Ada', 'ada@example.com']]);
    const baseline = await poll(sheet.input, null);
    expect(baseline.outputs).toEqual([]);
    expect(baseline.cursor).toEqual({ spreadsheet_id: sheet.spreadsheet.id, worksheet_title: TITLE, row: 2 });

    sheet.cells().push(['Grace', 'grace@example.com'], ['Alan', 'alan@example.com']);
    const next = await poll(sheet.input, baseline.cursor);
    expect(next.outputs).toEqual([
      { row_number: 3, values: { Name: 'Grace', Email: 'grace@example.com' }, spreadsheet_id: sheet.spreadsheet.id, worksheet_title: TITLE },
      { row_number: 4, values: { Name: 'Alan', Email: 'alan@example.com' }, spreadsheet_id: sheet.spreadsheet.id, worksheet_title: TITLE },
    ]);
    expect(next.cursor).toMatchObject({ row: 4 });

    const again = await poll(sheet.input, next.cursor);
    expect(again.outputs).toEqual([]);
    expect(again.cursor).toEqual(next.cursor);
  });

  it('counts rows added by add_row (Google’s append) after the baseline', async () => {
    const sheet = sheetWith([]);
    const { cursor } = await poll(sheet.input, null);
    expect(cursor).toMatchObject({ row: 1 });
    await runAction(googleSheetsApp, 'add_row', { ...sheet.input, values: { Name: 'Ada', Email: 'ada@example.com' } }, t.call());
    const next = await poll(sheet.input, cursor);
    expect(next.outputs).toEqual([expect.objectContaining({ row_number: 2, values: { Name: 'Ada', Email: 'ada@example.com' } })]);
  });

  it('returns at most 500 rows a poll and pages on with the cursor', async () => {
    const sheet = sheetWith([]);
    const { cursor } = await poll(sheet.input, null);
    sheet.cells().push(...Array.from({ length: 1203 }, (_, index) => [`P${index}`, `p${index}@example.com`]));
    t.google.worksheet(sheet.spreadsheet.id, TITLE).rowCount = 2000;

    const pages: number[][] = [];
    let at: unknown = cursor;
    for (let round = 0; round < 5; round++) {
      const result = await poll(sheet.input, at);
      pages.push(result.outputs.map((event) => (event as { row_number: number }).row_number));
      at = result.cursor;
    }
    expect(pages.map((page) => page.length)).toEqual([500, 500, 203, 0, 0]);
    expect(pages.flat()).toEqual(Array.from({ length: 1203 }, (_, index) => index + 2));
  });

  it('skips blank rows, and finds a row typed far below the last one', async () => {
    const sheet = sheetWith([['Ada', 'a@example.com']]);
    const { cursor } = await poll(sheet.input, null);
    sheet.cells()[4] = ['Grace', 'g@example.com'];
    sheet.cells()[800] = ['Far', 'far@example.com'];
    const next = await poll(sheet.input, cursor);
    expect(next.outputs.map((event) => (event as { row_number: number }).row_number)).toEqual([5]);
    const later = await poll(sheet.input, next.cursor);
    expect(later.outputs.map((event) => (event as { row_number: number }).row_number)).toEqual([801]);
    expect((await poll(sheet.input, later.cursor)).outputs).toEqual([]);
  });

  it('lowers its mark when rows at the bottom are deleted, so rows added there later start the flow', async () => {
    const sheet = sheetWith([['A', 'a'], ['B', 'b'], ['C', 'c']]);
    const { cursor } = await poll(sheet.input, null);
    expect(cursor).toMatchObject({ row: 4 });
    sheet.cells().splice(2, 2);
    const after = await poll(sheet.input, cursor);
    expect(after.outputs).toEqual([]);
    expect(after.cursor).toMatchObject({ row: 2 });
    sheet.cells().push(['D', 'd']);
    expect((await poll(sheet.input, after.cursor)).outputs).toEqual([expect.objectContaining({ row_number: 3, values: { Name: 'D', Email: 'd' } })]);
  });

  it('takes a new baseline when the grid lost the cursor’s row', async () => {
    const sheet = sheetWith(Array.from({ length: 20 }, (_, index) => [`P${index}`, '']));
    const { cursor } = await poll(sheet.input, null);
    expect(cursor).toMatchObject({ row: 21 });
    const grid = t.google.worksheet(sheet.spreadsheet.id, TITLE);
    grid.cells.length = 10;
    grid.rowCount = 12;
    const after = await poll(sheet.input, cursor);
    expect(after).toMatchObject({ outputs: [], cursor: { row: 10 } });
  });

  it('takes a new baseline when the cursor is another worksheet’s or unreadable', async () => {
    const sheet = sheetWith([['A', 'a'], ['B', 'b']]);
    for (const cursor of [{ spreadsheet_id: 'other', worksheet_title: TITLE, row: 1 }, { row: 'x' }, 'garbage']) {
      const result = await poll(sheet.input, cursor);
      expect(result.outputs).toEqual([]);
      expect(result.cursor).toEqual({ spreadsheet_id: sheet.spreadsheet.id, worksheet_title: TITLE, row: 3 });
    }
  });

  it('reads rows within the grid only, through quoted ranges', async () => {
    const sheet = sheetWith([['A', 'a']]);
    const { cursor } = await poll(sheet.input, null);
    t.google.requests.length = 0;
    await poll(sheet.input, cursor);
    const reads = requestsTo(t.google, 'GET', '/values/').map((request) => decodeURIComponent(request.path.split('/values/')[1]));
    expect(reads).toEqual(["'Form responses'!1:1", "'Form responses'!A2:Z502", "'Form responses'!A503:Z"]);
  });
});
