import ExcelJS from 'exceljs';
import { ImportSourceError, type ImportItem, type ImportReader } from '../import-reader';

/**
 * An Excel workbook (.xlsx), streamed with exceljs's WorkbookReader: rows are read as
 * the zip is inflated, not loaded as a whole workbook. The sheet is the import's
 * `sheet` option, else the first one. Its first non-empty row names the columns;
 * rows are numbered as the sheet numbers them. Cells keep their types (numbers,
 * booleans, dates); formulas give their cached result, rich text its plain text, a
 * hyperlink its shown text, an error cell is empty.
 */
export const readXlsx: ImportReader = async function* (context) {
  const wanted = context.import.options.sheet;
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(context.content(), {
    sharedStrings: 'cache',
    // Styles tell a date from a number (a date is a formatted serial number).
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  const names: string[] = [];
  try {
    for await (const sheet of workbook) {
      const name: string = (sheet as unknown as { name: string }).name;
      names.push(name);
      if (typeof wanted === 'string' ? name === wanted : names.length === 1) {
        yield* sheetRows(sheet);
        return;
      }
      // The reader moves to the next sheet only once this one is read through.
      for await (const _row of sheet);
    }
  } catch (error) {
    if (error instanceof ImportSourceError) throw error;
    throw new ImportSourceError(`Not a readable Excel workbook: ${(error as Error).message}`);
  }
  if (names.length === 0) throw new ImportSourceError('The workbook has no sheets');
  throw new ImportSourceError(`The workbook has no sheet named "${String(wanted)}" (its sheets: ${names.map((name) => `"${name}"`).join(', ')})`);
};

async function* sheetRows(sheet: ExcelJS.stream.xlsx.WorksheetReader): AsyncGenerator<ImportItem> {
  let width = 0;
  for await (const row of sheet) {
    // `values` is 1-based: index 0 is always empty.
    const cells = (row.values as unknown[]).slice(1).map(plainValue);
    if (cells.every((cell) => cell === null)) continue;
    if (width === 0) {
      width = cells.length;
      yield { kind: 'columns', names: cells.map((cell) => (cell === null ? '' : cell instanceof Date ? cell.toISOString() : String(cell))) };
      continue;
    }
    yield { kind: 'row', row: row.number, cells: cells.slice(0, width) };
  }
  if (width === 0) throw new ImportSourceError('The sheet is empty');
}

/** A cell's value as a plain value: what it shows, with its type. */
function plainValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || value instanceof Date) return value;
  const cell = value as { result?: unknown; richText?: Array<{ text: string }>; text?: unknown; error?: unknown; formula?: unknown; sharedFormula?: unknown };
  if ('formula' in cell || 'sharedFormula' in cell) return plainValue(cell.result);
  if (cell.richText) return cell.richText.map((run) => run.text).join('');
  if ('text' in cell) return plainValue(cell.text);
  if ('error' in cell) return null;
  return JSON.stringify(value);
}
