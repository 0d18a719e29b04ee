import { ValidationError } from '../../../core';
import { googleSheetsApp } from '../../../plugins/app-google-sheets';
import { runAction } from '../../../plugins/flows/testing-kit';
import { requestsTo, useSheetsTest } from './google-sheets-test-kit';

const t = useSheetsTest();

const HEADER = ['Name', 'Email', 'Visits'];
const TITLE = "Bob's leads";

function leads(rows: string[][] = [['Ada', 'ada@example.com', '3'], ['Grace', 'grace@example.com', '5']]) {
  return t.google.addSpreadsheet('Leads', { Other: [['x']], [TITLE]: [HEADER, ...rows] });
}

describe('add_row', () => {
  it('appends the values in header order after the table, and outputs the new row', async () => {
    const spreadsheet = leads();
    const { output } = await runAction(
      googleSheetsApp,
      'add_row',
      { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, values: { Visits: 1, Name: 'Alan', Email: 'alan@example.com' } },
      t.call(),
    );
    expect(output).toEqual({ row_number: 4, range: "'Bob''s leads'!A4:C4", values: { Name: 'Alan', Email: 'alan@example.com', Visits: '1' } });
    expect(t.google.rowsOf(spreadsheet.id, TITLE)[3]).toEqual(['Alan', 'alan@example.com', '1']);
    const [append] = requestsTo(t.google, 'POST', ':append');
    expect(append.path).toBe(`/v4/spreadsheets/${spreadsheet.id}/values/'Bob''s%20leads'!A%3AZ:append`);
    expect(Object.fromEntries(append.query)).toEqual({ valueInputOption: 'USER_ENTERED', insertDataOption: 'INSERT_ROWS' });
    expect(append.json()).toEqual({ range: "'Bob''s leads'!A:Z", majorDimension: 'ROWS', values: [['Alan', 'alan@example.com', 1]] });
    // Google ignores Idempotency-Key; sent, it would let egress repeat the append after a 503.
    expect(append.headers['idempotency-key']).toBeUndefined();
  });

  it('leaves out columns not given (empty cells) and empties a cell for null', async () => {
    const spreadsheet = leads([]);
    const { output } = await runAction(googleSheetsApp, 'add_row', { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, values: { Email: 'x@example.com', Name: null } }, t.call());
    expect(output).toMatchObject({ row_number: 2, values: { Name: '', Email: 'x@example.com', Visits: '' } });
    expect(t.google.rowsOf(spreadsheet.id, TITLE)).toEqual([HEADER, ['', 'x@example.com']]);
  });

  it('fails on a column the header row does not have, naming the columns, and writes nothing', async () => {
    const spreadsheet = leads();
    await expect(
      runAction(googleSheetsApp, 'add_row', { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, values: { Name: 'Alan', Phone: '555' } }, t.call()),
    ).rejects.toThrow(`"Phone" is not a column of worksheet "Bob's leads" (its columns: "Name", "Email", "Visits")`);
    expect(requestsTo(t.google, 'POST', ':append')).toHaveLength(0);
  });

  it('fails on a worksheet the spreadsheet does not have', async () => {
    const spreadsheet = leads();
    await expect(runAction(googleSheetsApp, 'add_row', { spreadsheet_id: spreadsheet.id, worksheet_title: 'Gone', values: { Name: 'A' } }, t.call())).rejects.toThrow(
      `Spreadsheet ${spreadsheet.id} has no worksheet "Gone" (its worksheets: "Other", "Bob's leads")`,
    );
  });

  it('refuses bad input with a 422 naming each member', async () => {
    const failure = await runAction(googleSheetsApp, 'add_row', { spreadsheet_id: 'has spaces', worksheet_title: '', values: {} }, t.call()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect(Object.keys((failure as ValidationError).errors).sort()).toEqual(['config.spreadsheet_id', 'config.values', 'config.worksheet_title']);
    expect(t.google.requests).toHaveLength(0);
  });
});

describe('update_row', () => {
  it('writes the given cells of the first matching row and outputs the row afterwards', async () => {
    const spreadsheet = leads([
      ['Ada', 'ada@example.com', '3'],
      ['Grace', 'grace@example.com', '5'],
      ['Grace 2', 'grace@example.com', '9'],
    ]);
    const run = await runAction(
      googleSheetsApp,
      'update_row',
      { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, lookup_column: 'Email', lookup_value: 'grace@example.com', values: { Visits: 6, Name: 'Grace H.' } },
      t.call(),
    );
    expect(run.output).toEqual({ updated: true, row_number: 3, values: { Name: 'Grace H.', Email: 'grace@example.com', Visits: '6' } });
    expect(t.google.rowsOf(spreadsheet.id, TITLE)).toEqual([HEADER, ['Ada', 'ada@example.com', '3'], ['Grace H.', 'grace@example.com', '6'], ['Grace 2', 'grace@example.com', '9']]);
    const [update] = requestsTo(t.google, 'POST', 'values:batchUpdate');
    expect(update.json()).toEqual({
      valueInputOption: 'USER_ENTERED',
      data: [
        { range: "'Bob''s leads'!C3", values: [[6]], majorDimension: 'ROWS' },
        { range: "'Bob''s leads'!A3", values: [['Grace H.']], majorDimension: 'ROWS' },
      ],
    });
    expect(update.headers['idempotency-key']).toBe(run.idempotencyKey);
  });

  it('finds rows past the first block of a long sheet', async () => {
    const rows = Array.from({ length: 1500 }, (_, index) => [`Person ${index}`, `p${index}@example.com`, String(index)]);
    const spreadsheet = leads(rows);
    const { output } = await runAction(
      googleSheetsApp,
      'update_row',
      { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, lookup_column: 'Email', lookup_value: 'p1400@example.com', values: { Visits: 'many' } },
      t.call(),
    );
    expect(output).toMatchObject({ updated: true, row_number: 1402, values: { Name: 'Person 1400', Visits: 'many' } });
  });

  it('outputs updated: false and writes nothing when no row matches', async () => {
    const spreadsheet = leads();
    const { output } = await runAction(
      googleSheetsApp,
      'update_row',
      { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, lookup_column: 'Email', lookup_value: 'nobody@example.com', values: { Visits: 1 } },
      t.call(),
    );
    expect(output).toEqual({ updated: false, row_number: null, values: null });
    expect(requestsTo(t.google, 'POST', 'values:batchUpdate')).toHaveLength(0);
  });
});

describe('find_rows', () => {
  it('outputs the matching rows top to bottom, keyed by header, with their row numbers', async () => {
    const spreadsheet = leads([
      ['Ada', 'ada@example.com', '3'],
      [],
      ['Grace', 'grace@example.com', '3'],
      ['Alan', 'alan@example.com', '30'],
    ]);
    const { output } = await runAction(googleSheetsApp, 'find_rows', { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, column: 'Visits', value: '3' }, t.call());
    expect(output).toEqual({
      rows: [
        { row_number: 2, values: { Name: 'Ada', Email: 'ada@example.com', Visits: '3' } },
        { row_number: 4, values: { Name: 'Grace', Email: 'grace@example.com', Visits: '3' } },
      ],
      count: 2,
      truncated: false,
    });
  });

  it('stops at the limit and says more matched', async () => {
    const spreadsheet = leads(Array.from({ length: 5 }, (_, index) => [`P${index}`, '', 'x']));
    const { output } = await runAction(googleSheetsApp, 'find_rows', { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, column: 'Visits', value: 'x', limit: 2 }, t.call());
    expect(output).toMatchObject({ count: 2, truncated: true, rows: [{ row_number: 2 }, { row_number: 3 }] });
    const exact = await runAction(googleSheetsApp, 'find_rows', { spreadsheet_id: spreadsheet.id, worksheet_title: TITLE, column: 'Visits', value: 'x', limit: 5 }, t.call());
    expect(exact.output).toMatchObject({ count: 5, truncated: false });
  });

  it('refuses a limit out of range with a 422', async () => {
    const failure = await runAction(googleSheetsApp, 'find_rows', { spreadsheet_id: 'abc', worksheet_title: 'S', column: 'A', value: 'x', limit: 5000 }, t.call()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect(Object.keys((failure as ValidationError).errors)).toEqual(['config.limit']);
  });
});
