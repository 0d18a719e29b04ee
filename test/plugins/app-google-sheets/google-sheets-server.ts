import { randomBytes } from 'node:crypto';
import { startVendorServer, type OAuthServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../plugins/flows/testing-kit';

/**
 * Google's Sheets v4 and Drive v3 APIs as the Google Sheets app uses them, played on
 * loopback from their documented request and response shapes: spreadsheets as grids of
 * text (what `FORMATTED_VALUE` reads), A1 ranges parsed and bounded by the grid as Google
 * does (quoted titles with doubled quotes, `A1:C9`, `1:1`, `A:C`, `A2:C`, a bare title),
 * values.get trimming trailing empty rows and cells, append finding the table and
 * inserting after it, batchUpdate writing from each range's first cell, and Drive's
 * `files.list` query language for the clauses the app sends. Every request must carry an
 * access token the fake authorization server issued (401 otherwise, as Google answers).
 *
 * Not played: formulas are stored as typed, not computed; formats and dates are not
 * parsed (USER_ENTERED stores a value's text).
 */

export interface FakeWorksheet {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  /** Rows of cells, '' for an empty cell; rows and cells past the end are empty. */
  cells: string[][];
}

export interface FakeSpreadsheet {
  id: string;
  name: string;
  trashed: boolean;
  sheets: FakeWorksheet[];
}

export interface GoogleSheetsState {
  spreadsheets: FakeSpreadsheet[];
  /** Drive files that are not spreadsheets (documents): the Drive listing must leave them out. */
  otherFiles: Array<{ id: string; name: string; mimeType: string }>;
  /** Drive may answer fewer files than `pageSize` asks: the most it answers per page. */
  drivePageLimit: number;
  /** Answered, in order, instead of handling the next requests (a 429, a 500); one with `on` waits for a request whose `METHOD /path` holds it. */
  failures: Array<{ reply: VendorReply; on?: string }>;
}

export interface GoogleSheetsServer extends VendorServer<GoogleSheetsState> {
  /** A spreadsheet (and its Drive file) with worksheets of these rows; the grid is 1000 x 26 or as large as the rows. */
  addSpreadsheet(name: string, sheets: Record<string, Array<Array<string | number>>>, options?: { trashed?: boolean }): FakeSpreadsheet;
  /** A worksheet, to read or change what a test holds. */
  worksheet(spreadsheetId: string, title: string): FakeWorksheet;
  /** What the worksheet shows, rows trimmed of trailing empty cells and the grid of trailing empty rows. */
  rowsOf(spreadsheetId: string, title: string): string[][];
  /** The next requests (or the next ones whose `METHOD /path` holds `on`, such as `:append`) answer these instead, in Google's error body. */
  failNext(...replies: Array<{ status: number; headers?: Record<string, string>; message?: string; on?: string }>): void;
}

const SPREADSHEET_MIME_TYPE = 'application/vnd.google-apps.spreadsheet';
const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/** Google's JSON error body. */
const googleError = (status: number, message: string, headers?: Record<string, string>): VendorReply => ({
  status,
  headers,
  body: { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } },
});

class Refusal extends Error {
  constructor(readonly reply: VendorReply) {
    super('refused');
  }
}
const refuse = (status: number, message: string): never => {
  throw new Refusal(googleError(status, message));
};

// ---- A1 notation ------------------------------------------------------------------

/** 0-based column index of letters (A is 0, AA is 26). */
const columnIndex = (letters: string): number => [...letters.toUpperCase()].reduce((total, letter) => total * 26 + (letter.charCodeAt(0) - 64), 0) - 1;
const letterOf = (index: number): string => (index < 26 ? String.fromCharCode(65 + index) : letterOf(Math.floor(index / 26) - 1) + String.fromCharCode(65 + (index % 26)));

/** A title as Google writes it in the ranges it answers: quoted unless plain letters and digits. */
const titleInRange = (title: string): string => (/^[A-Za-z][A-Za-z0-9_]*$/.test(title) && !/^[A-Za-z]{1,3}\d+$/.test(title) ? title : `'${title.replace(/'/g, "''")}'`);

interface GridRange {
  sheet: FakeWorksheet;
  /** 0-based, inclusive. */
  rowStart: number;
  rowEnd: number;
  colStart: number;
  colEnd: number;
  /** Whether the range names its last row and column (`A2:C9`), rather than running to the grid's end. */
  bounded: boolean;
}

const a1Of = (range: GridRange): string => `${titleInRange(range.sheet.title)}!${letterOf(range.colStart)}${range.rowStart + 1}:${letterOf(range.colEnd)}${range.rowEnd + 1}`;

/** Splits `'It''s'!A1:B2` into the title and the cells; an unquoted title runs to the last `!`. */
function splitRange(text: string): { title: string | null; cells: string | null } {
  if (text.startsWith("'")) {
    let title = '';
    let at = 1;
    for (; at < text.length; at++) {
      if (text[at] === "'" && text[at + 1] === "'") {
        title += "'";
        at++;
      } else if (text[at] === "'") break;
      else title += text[at];
    }
    if (at >= text.length) refuse(400, `Unable to parse range: ${text}`);
    const rest = text.slice(at + 1);
    if (rest === '') return { title, cells: null };
    if (!rest.startsWith('!')) refuse(400, `Unable to parse range: ${text}`);
    return { title, cells: rest.slice(1) };
  }
  const bang = text.lastIndexOf('!');
  return bang < 0 ? { title: null, cells: text } : { title: text.slice(0, bang), cells: text.slice(bang + 1) };
}

function parseRange(spreadsheet: FakeSpreadsheet, text: string): GridRange {
  let { title, cells } = splitRange(text);
  // No `!`: a worksheet's title, or cells of the first worksheet.
  if (title === null && spreadsheet.sheets.some((sheet) => sheet.title === cells)) [title, cells] = [cells, null];
  const sheet = title === null ? spreadsheet.sheets[0] : spreadsheet.sheets.find((candidate) => candidate.title === title);
  if (!sheet) return refuse(400, `Unable to parse range: ${text}`);
  const whole = { sheet, rowStart: 0, rowEnd: sheet.rowCount - 1, colStart: 0, colEnd: sheet.columnCount - 1, bounded: false };
  if (cells === null) return whole;
  const ends = cells.split(':');
  const parsed = ends.map((end) => /^\$?([A-Za-z]*)\$?(\d*)$/.exec(end));
  if (ends.length > 2 || parsed.some((match) => !match || (match[1] === '' && match[2] === ''))) return refuse(400, `Unable to parse range: ${text}`);
  const [start, end = start] = parsed as RegExpExecArray[];
  if (ends.length === 1 && (start[1] === '' || start[2] === '')) return refuse(400, `Unable to parse range: ${text}`);
  const range: GridRange = {
    sheet,
    rowStart: start[2] ? Number(start[2]) - 1 : 0,
    colStart: start[1] ? columnIndex(start[1]) : 0,
    rowEnd: end[2] ? Number(end[2]) - 1 : sheet.rowCount - 1,
    colEnd: end[1] ? columnIndex(end[1]) : sheet.columnCount - 1,
    bounded: Boolean(end[1] && end[2]),
  };
  if (range.rowStart < 0 || range.rowEnd < range.rowStart || range.colEnd < range.colStart) refuse(400, `Unable to parse range: ${text}`);
  if (range.rowEnd >= sheet.rowCount || range.colEnd >= sheet.columnCount) {
    refuse(400, `Range (${a1Of(range)}) exceeds grid limits. Max rows: ${sheet.rowCount}, max columns: ${sheet.columnCount}`);
  }
  return range;
}

// ---- grids ------------------------------------------------------------------------

const cellAt = (sheet: FakeWorksheet, row: number, col: number): string => sheet.cells[row]?.[col] ?? '';
const rowBlank = (sheet: FakeWorksheet, row: number, colStart: number, colEnd: number): boolean => {
  for (let col = colStart; col <= colEnd; col++) if (cellAt(sheet, row, col) !== '') return false;
  return true;
};

/** A value as the sheet then shows it (USER_ENTERED without formats): booleans as TRUE/FALSE, numbers as written. */
const shown = (value: unknown): string => (typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value));

function writeCell(sheet: FakeWorksheet, row: number, col: number, value: unknown): void {
  // The API skips a null: the cell keeps what it had.
  if (value === null || value === undefined) return;
  if (!['string', 'number', 'boolean'].includes(typeof value)) refuse(400, `Invalid value at 'data.values' (${typeof value})`);
  (sheet.cells[row] ??= [])[col] = shown(value);
}

/** The cells of a range, row by row, trailing empty cells and rows left out (ValueRange `values` for output). */
function valuesOf(range: GridRange): string[][] {
  const rows: string[][] = [];
  for (let row = range.rowStart; row <= range.rowEnd; row++) {
    const cells: string[] = [];
    for (let col = range.colStart; col <= range.colEnd; col++) cells.push(cellAt(range.sheet, row, col));
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    rows.push(cells);
  }
  while (rows.length > 0 && rows[rows.length - 1].length === 0) rows.pop();
  return rows;
}

const checkRows = (values: unknown): unknown[][] => {
  if (!Array.isArray(values) || !values.every(Array.isArray)) return refuse(400, "Invalid value at 'values': must be a list of lists");
  return values as unknown[][];
};

const checkInputOption = (option: unknown) => {
  if (option !== 'RAW' && option !== 'USER_ENTERED') refuse(400, "'valueInputOption' is required and must be RAW or USER_ENTERED");
};

// ---- Drive queries ----------------------------------------------------------------

type Clause = (file: { name: string; mimeType: string; trashed: boolean }) => boolean;

/** A Drive query string literal at `at` (after its opening quote): backslash escapes `\'` and `\\`. */
function readLiteral(query: string, at: number): { value: string; end: number } {
  let value = '';
  for (let index = at; index < query.length; index++) {
    const char = query[index];
    if (char === '\\') {
      const next = query[index + 1];
      if (next !== "'" && next !== '\\') refuse(400, `Invalid Value: bad escape in query ${query}`);
      value += next;
      index++;
    } else if (char === "'") return { value, end: index + 1 };
    else value += char;
  }
  return refuse(400, `Invalid Value: unterminated string in query ${query}`);
}

/** Drive's `name contains` matches the start of the name or of a word in it, ignoring case (Drive's documented prefix matching). */
const nameContains = (name: string, term: string) => name.toLowerCase().split(/[^\p{L}\p{N}]+/u).some((word) => word.startsWith(term.toLowerCase())) || name.toLowerCase().startsWith(term.toLowerCase());

/** The clauses the app sends, joined by `and`; anything else is Drive's 400. */
function parseQuery(query: string): Clause[] {
  const clauses: Clause[] = [];
  let at = 0;
  const skipSpaces = () => {
    while (query[at] === ' ') at++;
  };
  while (at < query.length) {
    skipSpaces();
    const head = /^(mimeType|name|trashed)\s*(=|!=|contains)\s*/.exec(query.slice(at));
    if (!head) refuse(400, `Invalid Value: cannot parse query ${query}`);
    at += head![0].length;
    const [, field, operator] = head!;
    if (field === 'trashed') {
      const literal = /^(true|false)/.exec(query.slice(at));
      if (!literal || operator === 'contains') refuse(400, `Invalid Value: cannot parse query ${query}`);
      at += literal![0].length;
      const wanted = literal![1] === 'true';
      clauses.push((file) => (operator === '=' ? file.trashed === wanted : file.trashed !== wanted));
    } else {
      if (query[at] !== "'") refuse(400, `Invalid Value: expected a string in query ${query}`);
      const { value, end } = readLiteral(query, at + 1);
      at = end;
      const read = (file: { name: string; mimeType: string }) => (field === 'name' ? file.name : file.mimeType);
      if (operator === 'contains' && field !== 'name') refuse(400, `Invalid Value: ${field} does not take contains`);
      clauses.push((file) => (operator === 'contains' ? nameContains(read(file), value) : operator === '=' ? read(file) === value : read(file) !== value));
    }
    skipSpaces();
    if (at < query.length) {
      if (!query.startsWith('and ', at)) refuse(400, `Invalid Value: cannot parse query ${query}`);
      at += 4;
    }
  }
  return clauses;
}

// ---- the server -------------------------------------------------------------------

export async function startGoogleSheetsServer({ oauth }: { oauth: Pick<OAuthServer, 'accepts'> }): Promise<GoogleSheetsServer> {
  const state: GoogleSheetsState = { spreadsheets: [], otherFiles: [], drivePageLimit: 1000, failures: [] };
  let nextSheetId = 0;

  const spreadsheetOf = (id: string): FakeSpreadsheet => state.spreadsheets.find((spreadsheet) => spreadsheet.id === id) ?? refuse(404, 'Requested entity was not found.');

  /** Failures first, then the access token, then the handler; a Refusal is the Google error it carries. */
  const google =
    (handler: (request: VendorRequest) => VendorReply) =>
    (request: VendorRequest): VendorReply => {
      const index = state.failures.findIndex((failure) => !failure.on || `${request.method} ${request.path}`.includes(failure.on));
      if (index >= 0) return state.failures.splice(index, 1)[0].reply;
      if (!oauth.accepts(request.headers.authorization)) {
        return googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
      }
      try {
        return handler(request);
      } catch (error) {
        if (error instanceof Refusal) return error.reply;
        throw error;
      }
    };

  const listFiles = google((request) => {
    const query = request.query.get('q') ?? '';
    const clauses = parseQuery(query);
    const pageSize = Number(request.query.get('pageSize') ?? 100);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) refuse(400, 'Invalid Value: pageSize');
    let offset = 0;
    const token = request.query.get('pageToken');
    if (token) {
      let decoded: { q?: string; offset?: number } = {};
      try {
        decoded = JSON.parse(Buffer.from(token, 'base64url').toString());
      } catch {
        // refused below
      }
      if (decoded.q !== query || typeof decoded.offset !== 'number') refuse(400, 'Invalid Value: pageToken');
      offset = decoded.offset!;
    }
    const files = [
      ...state.spreadsheets.map((spreadsheet) => ({ id: spreadsheet.id, name: spreadsheet.name, mimeType: SPREADSHEET_MIME_TYPE, trashed: spreadsheet.trashed })),
      ...state.otherFiles.map((file) => ({ ...file, trashed: false })),
    ].filter((file) => clauses.every((clause) => clause(file)));
    const page = files.slice(offset, offset + Math.min(pageSize, state.drivePageLimit));
    const end = offset + page.length;
    // `fields` picks what each file carries (`files(id,name)`); without it Drive answers id, name, mimeType and kind.
    const picked = /files\(([^)]*)\)/.exec(request.query.get('fields') ?? '')?.[1].split(',').map((field) => field.trim()) ?? ['kind', 'id', 'name', 'mimeType'];
    return {
      body: {
        ...(end < files.length ? { nextPageToken: Buffer.from(JSON.stringify({ q: query, offset: end })).toString('base64url') } : {}),
        files: page.map((file) => Object.fromEntries(picked.map((field) => [field, field === 'kind' ? 'drive#file' : (file as Record<string, unknown>)[field]]))),
      },
    };
  });

  const getSpreadsheet = google((request) => {
    const spreadsheet = spreadsheetOf(request.params.id);
    const sheets = spreadsheet.sheets.map((sheet, index) => ({
      properties: { sheetId: sheet.sheetId, title: sheet.title, index, sheetType: 'GRID', gridProperties: { rowCount: sheet.rowCount, columnCount: sheet.columnCount } },
    }));
    if (request.query.get('fields') === 'sheets.properties') return { body: { sheets } };
    return { body: { spreadsheetId: spreadsheet.id, properties: { title: spreadsheet.name }, sheets } };
  });

  const getValues = google((request) => {
    const range = parseRange(spreadsheetOf(request.params.id), request.params.range);
    if ((request.query.get('majorDimension') ?? 'ROWS') !== 'ROWS') refuse(400, 'the fake answers majorDimension=ROWS only');
    const values = valuesOf(range);
    return { body: { range: a1Of(range), majorDimension: 'ROWS', ...(values.length > 0 ? { values } : {}) } };
  });

  const append = google((request) => {
    const spreadsheet = spreadsheetOf(request.params.id);
    const match = /^(.*):append$/.exec(request.params.range);
    if (!match) return refuse(404, 'Not found');
    const range = parseRange(spreadsheet, match[1]);
    checkInputOption(request.query.get('valueInputOption'));
    const insert = request.query.get('insertDataOption') ?? 'OVERWRITE';
    if (insert !== 'OVERWRITE' && insert !== 'INSERT_ROWS') refuse(400, 'Invalid insertDataOption');
    const body = request.json<{ range?: string; majorDimension?: string; values?: unknown }>();
    if (body.range !== undefined && body.range !== match[1]) refuse(400, `Requested range [${match[1]}] and body range [${body.range}] differ`);
    if ((body.majorDimension ?? 'ROWS') !== 'ROWS') refuse(400, 'the fake appends majorDimension=ROWS only');
    const rows = checkRows(body.values);
    const { sheet } = range;
    // The table: the first filled row at or below the range's top (in its columns), and the filled rows right below it.
    let first = range.rowStart;
    while (first <= range.rowEnd && rowBlank(sheet, first, range.colStart, range.colEnd)) first++;
    let last = first - 1;
    if (first <= range.rowEnd) for (last = first; last + 1 < sheet.rowCount && !rowBlank(sheet, last + 1, range.colStart, range.colEnd); last++);
    const at = first <= range.rowEnd ? last + 1 : range.rowStart;
    if (insert === 'INSERT_ROWS') {
      sheet.cells.splice(at, 0, ...rows.map(() => [] as string[]));
      sheet.rowCount += rows.length;
    }
    sheet.rowCount = Math.max(sheet.rowCount, at + rows.length);
    const width = Math.max(1, ...rows.map((row) => row.length));
    sheet.columnCount = Math.max(sheet.columnCount, range.colStart + width);
    rows.forEach((row, offset) => row.forEach((value, col) => writeCell(sheet, at + offset, range.colStart + col, value)));
    const written: GridRange = { sheet, rowStart: at, rowEnd: at + rows.length - 1, colStart: range.colStart, colEnd: range.colStart + width - 1, bounded: true };
    const table: GridRange = { ...range, rowStart: first, rowEnd: last };
    return {
      body: {
        spreadsheetId: spreadsheet.id,
        ...(last >= first ? { tableRange: a1Of(table) } : {}),
        updates: { spreadsheetId: spreadsheet.id, updatedRange: a1Of(written), updatedRows: rows.length, updatedColumns: width, updatedCells: rows.reduce((total, row) => total + row.length, 0) },
      },
    };
  });

  const batchUpdate = google((request) => {
    const spreadsheet = spreadsheetOf(request.params.id);
    const body = request.json<{ valueInputOption?: string; data?: unknown }>();
    checkInputOption(body.valueInputOption);
    if (!Array.isArray(body.data) || body.data.length === 0) return refuse(400, "'data' must hold at least one range");
    // Every range is checked before anything is written: the request succeeds or fails whole.
    const writes = (body.data as Array<{ range?: unknown; majorDimension?: string; values?: unknown }>).map((item) => {
      if (typeof item.range !== 'string') return refuse(400, "Invalid value at 'data.range'");
      if ((item.majorDimension ?? 'ROWS') !== 'ROWS') refuse(400, 'the fake writes majorDimension=ROWS only');
      const range = parseRange(spreadsheet, item.range);
      const rows = checkRows(item.values);
      const rowEnd = range.rowStart + rows.length - 1;
      const colEnd = range.colStart + Math.max(1, ...rows.map((row) => row.length)) - 1;
      if (range.bounded && (rowEnd > range.rowEnd || colEnd > range.colEnd)) {
        refuse(400, `Requested writing within range [${item.range}], but tried writing to ${rowEnd > range.rowEnd ? `row [${rowEnd + 1}]` : `column [${letterOf(colEnd)}]`}`);
      }
      if (rowEnd >= range.sheet.rowCount || colEnd >= range.sheet.columnCount) refuse(400, `Range (${item.range}) exceeds grid limits`);
      return { range, rows, rowEnd, colEnd };
    });
    const responses = writes.map(({ range, rows, rowEnd, colEnd }) => {
      rows.forEach((row, offset) => row.forEach((value, col) => writeCell(range.sheet, range.rowStart + offset, range.colStart + col, value)));
      const cells = rows.reduce((total, row) => total + row.filter((value) => value !== null).length, 0);
      return { spreadsheetId: spreadsheet.id, updatedRange: a1Of({ ...range, rowEnd, colEnd }), updatedRows: rows.length, updatedColumns: colEnd - range.colStart + 1, updatedCells: cells };
    });
    return {
      body: {
        spreadsheetId: spreadsheet.id,
        totalUpdatedRows: responses.reduce((total, item) => total + item.updatedRows, 0),
        totalUpdatedColumns: Math.max(...responses.map((item) => item.updatedColumns)),
        totalUpdatedCells: responses.reduce((total, item) => total + item.updatedCells, 0),
        totalUpdatedSheets: new Set(writes.map((write) => write.range.sheet)).size,
        responses,
      },
    };
  });

  const server = await startVendorServer<GoogleSheetsState>(
    {
      'GET /drive/v3/files': listFiles,
      'GET /v4/spreadsheets/:id': getSpreadsheet,
      'GET /v4/spreadsheets/:id/values/:range': getValues,
      'POST /v4/spreadsheets/:id/values/:range': append,
      'POST /v4/spreadsheets/:id/values:batchUpdate': batchUpdate,
    },
    { state },
  );

  const worksheet = (spreadsheetId: string, title: string): FakeWorksheet => {
    const sheet = state.spreadsheets.find((spreadsheet) => spreadsheet.id === spreadsheetId)?.sheets.find((candidate) => candidate.title === title);
    if (!sheet) throw new Error(`the fake has no worksheet "${title}" in spreadsheet ${spreadsheetId}`);
    return sheet;
  };

  return {
    get url() {
      return server.url;
    },
    state,
    requests: server.requests,
    close: () => server.close(),
    addSpreadsheet(name, sheets, options = {}) {
      const spreadsheet: FakeSpreadsheet = {
        id: randomBytes(22).toString('base64url'),
        name,
        trashed: options.trashed ?? false,
        sheets: Object.entries(sheets).map(([title, rows]) => ({
          sheetId: nextSheetId++,
          title,
          rowCount: Math.max(1000, rows.length),
          columnCount: Math.max(26, ...rows.map((row) => row.length)),
          cells: rows.map((row) => row.map(shown)),
        })),
      };
      state.spreadsheets.push(spreadsheet);
      return spreadsheet;
    },
    worksheet,
    rowsOf(spreadsheetId, title) {
      const sheet = worksheet(spreadsheetId, title);
      return valuesOf({ sheet, rowStart: 0, rowEnd: sheet.rowCount - 1, colStart: 0, colEnd: sheet.columnCount - 1, bounded: false });
    },
    failNext(...replies) {
      state.failures.push(...replies.map((reply) => ({ reply: googleError(reply.status, reply.message ?? `fake failure ${reply.status}`, reply.headers), on: reply.on })));
    },
  };
}
