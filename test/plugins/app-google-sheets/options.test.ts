import { ValidationError } from '../../../core';
import { googleSheetsApp } from '../../../plugins/app-google-sheets';
import { VendorError } from '../../../plugins/flows';
import { loadOptions } from '../../../plugins/flows/testing-kit';
import { requestsTo, useSheetsTest } from './google-sheets-test-kit';

const t = useSheetsTest();

describe('spreadsheets', () => {
  it('lists the spreadsheets (not trashed, no other files) page by page with Drive’s pageToken', async () => {
    const names = ['Budget 2025', 'Leads', 'Orders', 'Suppliers', 'Team'];
    const ids = names.map((name) => t.google.addSpreadsheet(name, { Sheet1: [] }).id);
    t.google.addSpreadsheet('Old leads', { Sheet1: [] }, { trashed: true });
    t.google.state.otherFiles.push({ id: 'doc-1', name: 'Leads memo', mimeType: 'application/vnd.google-apps.document' });
    t.google.state.drivePageLimit = 2;

    const seen: Array<{ label: string; value: string }> = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const { result } = await loadOptions(googleSheetsApp, 'spreadsheets', {}, { ...t.call(), cursor });
      if (!('options' in result)) throw new Error('expected options');
      seen.push(...result.options);
      cursor = result.nextCursor ?? null;
      if (!cursor) break;
    }
    expect(seen).toEqual(names.map((name, index) => ({ label: name, value: ids[index] })));
    const lists = requestsTo(t.google, 'GET', '/drive/v3/files');
    expect(lists).toHaveLength(3);
    expect(lists[0].query.get('q')).toBe("mimeType='application/vnd.google-apps.spreadsheet' and trashed=false");
    expect(lists[0].query.get('fields')).toBe('nextPageToken,files(id,name)');
    expect(lists[0].query.get('pageToken')).toBeNull();
    expect(lists[1].query.get('pageToken')).toEqual(expect.any(String));
    expect(lists[0].headers.authorization).toMatch(/^Bearer access-/);
  });

  it('passes the search to Drive’s name contains, quotes escaped', async () => {
    const bob = t.google.addSpreadsheet("Bob's leads", { Sheet1: [] });
    t.google.addSpreadsheet('Leads 2024', { Sheet1: [] });
    t.google.addSpreadsheet('Orders', { Sheet1: [] });

    const { result } = await loadOptions(googleSheetsApp, 'spreadsheets', {}, { ...t.call(), search: " bob's " });
    expect(result).toEqual({ options: [{ label: "Bob's leads", value: bob.id }], nextCursor: null });
    expect(requestsTo(t.google, 'GET', '/drive/v3/files')[0].query.get('q')).toBe(
      "mimeType='application/vnd.google-apps.spreadsheet' and trashed=false and name contains 'bob\\'s'",
    );

    const leads = await loadOptions(googleSheetsApp, 'spreadsheets', {}, { ...t.call(), search: 'LEADS' });
    expect('options' in leads.result && leads.result.options.map((option) => option.label)).toEqual(["Bob's leads", 'Leads 2024']);
  });

  it('says to choose a connection when there is none', async () => {
    // loadOptions refuses a connect app's call without a connection, as the route does; the list's own answer covers a connection the route resolved to nothing.
    await expect(loadOptions(googleSheetsApp, 'spreadsheets', {}, { ...t.call(), connection: null })).rejects.toThrow(ValidationError);
  });

  it('turns Google’s refusal into a VendorError the options route shows as unavailable', async () => {
    t.google.failNext({ status: 403, message: 'Request had insufficient authentication scopes.' });
    const failure = await loadOptions(googleSheetsApp, 'spreadsheets', {}, t.call()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VendorError);
    expect(failure).toMatchObject({ status: 403, refused: true });
    expect((failure as Error).message).toMatch(
      /^Google Drive does not allow the connection to list spreadsheets \(403: Request had insufficient authentication scopes\.\); check the account.s permissions and the scopes granted$/,
    );
  });
});

describe('worksheets', () => {
  it('lists the worksheets by title in tab order, filtered by the search ignoring case', async () => {
    const spreadsheet = t.google.addSpreadsheet('Leads', { 'Q1 leads': [['Name']], 'Q2 leads': [], Archive: [] });
    const all = await loadOptions(googleSheetsApp, 'worksheets', { spreadsheet_id: spreadsheet.id }, t.call());
    expect(all.result).toEqual({
      options: [
        { label: 'Q1 leads', value: 'Q1 leads' },
        { label: 'Q2 leads', value: 'Q2 leads' },
        { label: 'Archive', value: 'Archive' },
      ],
      nextCursor: null,
    });
    const found = await loadOptions(googleSheetsApp, 'worksheets', { spreadsheet_id: spreadsheet.id }, { ...t.call(), search: 'q2' });
    expect(found.result).toEqual({ options: [{ label: 'Q2 leads', value: 'Q2 leads' }], nextCursor: null });
    expect(requestsTo(t.google, 'GET', `/v4/spreadsheets/${spreadsheet.id}`)[0].query.get('fields')).toBe('sheets.properties');
  });

  it('refuses missing params with a 422 naming the param', async () => {
    const failure = await loadOptions(googleSheetsApp, 'worksheets', {}, t.call()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect(Object.keys((failure as ValidationError).errors)).toEqual(['params.spreadsheet_id']);
  });

  it('answers unavailable, with Google’s words, for a spreadsheet that is gone', async () => {
    const { result } = await loadOptions(googleSheetsApp, 'worksheets', { spreadsheet_id: 'nope' }, t.call());
    expect(result).toEqual({
      state: 'unavailable',
      message: 'Google Sheets found nothing to read the worksheets of spreadsheet nope (404: Requested entity was not found.): choose another spreadsheet',
    });
  });

  it('lets Google’s own failure through (the options route answers 502)', async () => {
    const spreadsheet = t.google.addSpreadsheet('Leads', { Sheet1: [] });
    t.google.failNext({ status: 500, message: 'Internal error encountered.' });
    await expect(loadOptions(googleSheetsApp, 'worksheets', { spreadsheet_id: spreadsheet.id }, t.call())).rejects.toMatchObject({ name: 'VendorError', status: 500 });
  });
});

describe('columns', () => {
  it('lists the header row: value the header, label the header and its letter; empty headers left out', async () => {
    const spreadsheet = t.google.addSpreadsheet('Leads', { "Bob's list": [['Name', 'Email', '', 'Email', 'Visits'], ['Ada', 'ada@example.com']] });
    const params = { spreadsheet_id: spreadsheet.id, worksheet_title: "Bob's list" };
    const { result } = await loadOptions(googleSheetsApp, 'columns', params, t.call());
    expect(result).toEqual({
      options: [
        { label: 'Name (A)', value: 'Name' },
        { label: 'Email (B)', value: 'Email' },
        { label: 'Email (D)', value: 'Email (D)' },
        { label: 'Visits (E)', value: 'Visits' },
      ],
      nextCursor: null,
    });
    // The header row, through a quoted and encoded range.
    expect(requestsTo(t.google, 'GET', '/values/')[0].path).toBe(`/v4/spreadsheets/${spreadsheet.id}/values/'Bob''s%20list'!1%3A1`);
    const searched = await loadOptions(googleSheetsApp, 'columns', params, { ...t.call(), search: 'EMA' });
    expect('options' in searched.result && searched.result.options.map((option) => option.value)).toEqual(['Email', 'Email (D)']);
  });

  it('answers unavailable for a worksheet that is gone', async () => {
    const spreadsheet = t.google.addSpreadsheet('Leads', { Current: [['Name']] });
    const { result } = await loadOptions(googleSheetsApp, 'columns', { spreadsheet_id: spreadsheet.id, worksheet_title: 'Old' }, t.call());
    expect(result).toEqual({
      state: 'unavailable',
      message: `Spreadsheet ${spreadsheet.id} has no worksheet "Old" (its worksheets: "Current"): choose another worksheet`,
    });
  });
});
