import { columnLetter, rangeIn } from './a1';
import type { SheetsApi, WorksheetProperties } from './client';

/**
 * A worksheet as the app's actions and trigger see it: a grid whose first row holds the
 * column headers, and whose other rows are records keyed by those headers.
 */

/** A column of the grid and the key its cells have in a row object. */
export interface Column {
  /** 0-based. */
  index: number;
  /** `A`, `B`, ..., `AA`. */
  letter: string;
  /** The header cell's text (trimmed); '' when the header cell is empty. */
  header: string;
  /**
   * How inputs name the column and row objects key its cells: the header; the column
   * letter when the header is empty; `Header (C)` for the second column with a header
   * already taken, so every key names exactly one column.
   */
  key: string;
}

export interface Worksheet {
  spreadsheetId: string;
  title: string;
  sheetId: number;
  /** Rows and columns of the grid (empty ones included): where scans stop. */
  rowCount: number;
  columnCount: number;
  columns: Column[];
}

/** The spreadsheet has no worksheet by that title (renamed, deleted): the user must pick another. */
export class WorksheetNotFound extends Error {
  override readonly name = 'WorksheetNotFound';
}

/** A row's cells under their keys: every column with a header (empty text for an empty cell), and any filled cell under an empty header by its letter. */
export function rowObject(columns: readonly Column[], cells: readonly string[]): Record<string, string> {
  const row: Record<string, string> = {};
  for (const column of columns) {
    const cell = cells[column.index] ?? '';
    if (column.header !== '' || cell !== '') row[column.key] = cell;
  }
  return row;
}

export const isBlank = (cells: readonly string[]): boolean => cells.every((cell) => cell.trim() === '');

export function columnsOf(header: readonly string[], columnCount: number): Column[] {
  const taken = new Set<string>();
  return Array.from({ length: Math.max(header.length, columnCount) }, (_, index) => {
    const letter = columnLetter(index);
    const text = (header[index] ?? '').trim();
    let key = text === '' ? letter : text;
    if (taken.has(key)) key = `${text === '' ? letter : text} (${letter})`;
    taken.add(key);
    return { index, letter, header: text, key };
  });
}

export const worksheetsOf = (sheets: readonly WorksheetProperties[]) => sheets.filter((sheet) => (sheet.sheetType ?? 'GRID') === 'GRID');

/** The worksheet `title` of the spreadsheet with its header row; a WorksheetNotFound naming the worksheets it has otherwise. */
export async function openWorksheet(api: SheetsApi, spreadsheetId: string, title: string): Promise<Worksheet> {
  const sheets = worksheetsOf(await api.worksheets(spreadsheetId));
  const found = sheets.find((sheet) => sheet.title === title);
  if (!found) {
    const names = sheets.map((sheet) => `"${sheet.title}"`).join(', ') || 'none';
    throw new WorksheetNotFound(`Spreadsheet ${spreadsheetId} has no worksheet "${title}" (its worksheets: ${names})`);
  }
  const [header = []] = await api.read(spreadsheetId, rangeIn(title, '1:1'));
  const columnCount = found.gridProperties?.columnCount ?? header.length;
  return {
    spreadsheetId,
    title,
    sheetId: found.sheetId,
    rowCount: found.gridProperties?.rowCount ?? 1,
    columnCount,
    columns: columnsOf(header, columnCount),
  };
}

/** The column `key` names; an error listing the worksheet's columns when none does. */
export function columnNamed(sheet: Worksheet, key: string): Column {
  const column = sheet.columns.find((candidate) => candidate.key === key);
  if (column) return column;
  const named = sheet.columns.filter((candidate) => candidate.header !== '').map((candidate) => `"${candidate.key}"`);
  throw new Error(`"${key}" is not a column of worksheet "${sheet.title}" (its columns: ${named.join(', ') || 'none: its first row is empty'})`);
}

/** `'Title'!A<from>:<last column><to>`, or open-ended (to the last row with data) without `to`. */
export const rowsRange = (sheet: Worksheet, from: number, to?: number): string =>
  rangeIn(sheet.title, `A${from}:${columnLetter(Math.max(sheet.columns.length, 1) - 1)}${to ?? ''}`);

/** Rows read per request while scanning: a thousand rows of a wide sheet stay well under egress's response cap. */
export const SCAN_BLOCK_ROWS = 1000;

/** The rows from `from` to the end of the grid, block by block, with their row numbers; blank rows are skipped. Stop early by breaking out. */
export async function* scanRows(api: SheetsApi, sheet: Worksheet, from: number): AsyncGenerator<{ rowNumber: number; cells: string[] }> {
  for (let start = from; start <= sheet.rowCount; start += SCAN_BLOCK_ROWS) {
    const rows = await api.read(sheet.spreadsheetId, rowsRange(sheet, start, Math.min(start + SCAN_BLOCK_ROWS - 1, sheet.rowCount)));
    for (const [offset, cells] of rows.entries()) if (!isBlank(cells)) yield { rowNumber: start + offset, cells };
  }
}

/**
 * The last row at or above `below` that holds anything, 0 when none does. Reads backwards
 * a block at a time: usually one request, and never the whole sheet at once.
 */
export async function lastFilledRow(api: SheetsApi, sheet: Worksheet, below: number): Promise<number> {
  for (let end = Math.min(below, sheet.rowCount); end >= 1; end -= SCAN_BLOCK_ROWS) {
    const start = Math.max(1, end - SCAN_BLOCK_ROWS + 1);
    const rows = await api.read(sheet.spreadsheetId, rowsRange(sheet, start, end));
    for (let offset = rows.length - 1; offset >= 0; offset--) if (!isBlank(rows[offset])) return start + offset;
  }
  return 0;
}

/** A cell value for the API: `null` empties the cell (the API skips a null instead of clearing it). */
export const cellValue = (value: string | number | boolean | null): string | number | boolean => (value === null ? '' : value);
