import { expectOk, type ConnectionHttp, type ResolvedFlowAppDeps } from '../flows';
import type { googleSheetsDeps } from './deps';

/**
 * The Google APIs the app calls, through `context.http` (the connection's access token
 * applied and kept fresh) at the base URLs of the plugin's config. Every answer that is
 * not a 2xx becomes a VendorError naming what was tried (expectOk).
 */

export const SHEETS = 'Google Sheets';
export const DRIVE = 'Google Drive';

const SPREADSHEET_MIME_TYPE = 'application/vnd.google-apps.spreadsheet';
/** Drive's own maximum page (files.list `pageSize`). */
const DRIVE_PAGE_SIZE = 100;

export interface SheetsCallContext {
  http: ConnectionHttp;
  deps: ResolvedFlowAppDeps<typeof googleSheetsDeps>;
}

/** A worksheet's `properties` as `spreadsheets.get` answers them. */
export interface WorksheetProperties {
  sheetId: number;
  title: string;
  index?: number;
  sheetType?: string;
  gridProperties?: { rowCount?: number; columnCount?: number };
}

/** `spreadsheets.values.append`'s answer (AppendValuesResponse). */
export interface AppendAnswer {
  spreadsheetId?: string;
  tableRange?: string;
  updates?: { updatedRange?: string; updatedRows?: number; updatedCells?: number };
}

/** One range of `spreadsheets.values.batchUpdate`'s `data`, a single row of cells written from the range's first cell. */
export interface CellsWrite {
  range: string;
  values: Array<Array<string | number | boolean>>;
}

/**
 * A Drive query string literal (Drive search syntax): in single quotes, with backslash
 * and quote escaped by a backslash, so a typed `'` cannot end the literal and change the query.
 */
export const driveLiteral = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function sheetsApi({ http, deps }: SheetsCallContext) {
  const base = (key: 'googleSheetsApiBaseUrl' | 'googleSheetsDriveApiBaseUrl') => String(deps.config.get(key)).replace(/\/+$/, '');
  // A range is one path segment: `:`, `/` and spaces are escaped (`'` and `!` need not be).
  const spreadsheetUrl = (spreadsheetId: string, rest = '') => `${base('googleSheetsApiBaseUrl')}/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}${rest}`;

  return {
    /** A page of the spreadsheets the account can see (not trashed), those whose name holds `search` when one is given. */
    async listSpreadsheets(search: string | null, pageToken: string | null): Promise<{ files: Array<{ id: string; name: string }>; nextPageToken: string | null }> {
      const clauses = [`mimeType='${SPREADSHEET_MIME_TYPE}'`, 'trashed=false'];
      if (search) clauses.push(`name contains ${driveLiteral(search)}`);
      const response = await http.request(`${base('googleSheetsDriveApiBaseUrl')}/drive/v3/files`, {
        method: 'GET',
        query: {
          q: clauses.join(' and '),
          fields: 'nextPageToken,files(id,name)',
          pageSize: DRIVE_PAGE_SIZE,
          // Spreadsheets of shared drives too, not only of "My Drive".
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          ...(pageToken ? { pageToken } : {}),
        },
      });
      const page = expectOk(DRIVE, response, 'list spreadsheets').json<{ files?: Array<{ id: string; name: string }>; nextPageToken?: string }>();
      return { files: page.files ?? [], nextPageToken: page.nextPageToken ?? null };
    },

    /** The worksheets of a spreadsheet, in tab order. */
    async worksheets(spreadsheetId: string): Promise<WorksheetProperties[]> {
      const response = await http.request(spreadsheetUrl(spreadsheetId), { method: 'GET', query: { fields: 'sheets.properties' } });
      const body = expectOk(SHEETS, response, `read the worksheets of spreadsheet ${spreadsheetId}`).json<{ sheets?: Array<{ properties?: WorksheetProperties }> }>();
      return (body.sheets ?? []).flatMap((sheet) => (sheet.properties ? [sheet.properties] : []));
    },

    /** The cells of a range, row by row, as formatted text; trailing empty rows and cells are left out (as the API answers). */
    async read(spreadsheetId: string, range: string): Promise<string[][]> {
      const response = await http.request(spreadsheetUrl(spreadsheetId, `/values/${encodeURIComponent(range)}`), { method: 'GET', query: { majorDimension: 'ROWS' } });
      const body = expectOk(SHEETS, response, `read ${range}`).json<{ values?: unknown[][] }>();
      return (body.values ?? []).map((row) => row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
    },

    /**
     * Appends one row after the table `range` finds, inserting it (not writing over what
     * lies below), values read as if typed in the sheet (USER_ENTERED: `=SUM(...)`, dates).
     * No Idempotency-Key: Google ignores it, and with one egress would send the POST again
     * after a 502/503/504, appending the row twice.
     */
    async append(spreadsheetId: string, range: string, row: Array<string | number | boolean>): Promise<AppendAnswer> {
      const response = await http.request(spreadsheetUrl(spreadsheetId, `/values/${encodeURIComponent(range)}:append`), {
        method: 'POST',
        query: { valueInputOption: 'USER_ENTERED', insertDataOption: 'INSERT_ROWS' },
        body: { range, majorDimension: 'ROWS', values: [row] },
      });
      return expectOk(SHEETS, response, `append a row to ${range}`).json<AppendAnswer>();
    },

    /**
     * Writes several ranges in one request, values read as if typed in the sheet. Writing
     * the same cells twice changes nothing, so the Idempotency-Key (which lets egress retry
     * a 502/503/504) is safe here although Google ignores it.
     */
    async write(spreadsheetId: string, data: CellsWrite[], idempotencyKey: string): Promise<{ totalUpdatedCells?: number }> {
      const response = await http.request(spreadsheetUrl(spreadsheetId, '/values:batchUpdate'), {
        method: 'POST',
        body: { valueInputOption: 'USER_ENTERED', data: data.map((item) => ({ ...item, majorDimension: 'ROWS' })) },
        idempotencyKey,
      });
      return expectOk(SHEETS, response, `write ${data.map((item) => item.range).join(', ')}`).json<{ totalUpdatedCells?: number }>();
    },
  };
}

export type SheetsApi = ReturnType<typeof sheetsApi>;
