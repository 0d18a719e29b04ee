import { pipeline } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { ImportSourceError, type ImportItem, type ImportReader } from '../import-reader';
import { detectDelimiter } from '../detect-delimiter';
import { peekStream } from './peek-stream';

/** How much of the text the delimiter is detected from. */
const DETECTION_CHARS = 64 * 1024;

/**
 * CSV and TSV text (pasted or uploaded), streamed through csv-parse. The first line
 * names the columns; rows are numbered from 1 after it. The delimiter is the import's
 * `delimiter` option or detected from the first lines. A record csv-parse cannot read
 * (a field count other than the header's, a stray quote) becomes a bad row and the
 * parse goes on (`skip_records_with_error`); its message is csv-parse's.
 */
export const readCsv: ImportReader = async function* (context) {
  const { head, stream } = await peekStream(context.content());
  const given = context.import.options.delimiter;
  const delimiter = typeof given === 'string' ? given : detectDelimiter(head.subarray(0, DETECTION_CHARS).toString('utf8'));

  // Records and skipped records are numbered in the order csv-parse meets them (its
  // callbacks run in that order, ahead of the reading below); a skip is reported before
  // the next record read, so bad rows come out in row order.
  let row = 0;
  let header = true;
  const rowNumbers: number[] = [];
  const skipped: Array<Extract<ImportItem, { kind: 'bad-row' }>> = [];
  const parser = parse({
    delimiter,
    bom: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_record: (cells) => {
      rowNumbers.push(header ? 0 : ++row);
      header = false;
      return cells;
    },
    on_skip: (error) => {
      if (!header) skipped.push({ kind: 'bad-row', row: ++row, message: error?.message ?? 'unreadable row' });
      return undefined;
    },
  });
  const records = pipeline(stream, parser, () => {});

  let columns = false;
  try {
    for await (const cells of records as AsyncIterable<string[]>) {
      const number = rowNumbers.shift()!;
      if (!columns) {
        columns = true;
        yield { kind: 'columns', names: cells };
        continue;
      }
      while (skipped.length > 0 && skipped[0].row < number) yield skipped.shift()!;
      yield { kind: 'row', row: number, cells };
    }
  } catch (error) {
    if (error instanceof CsvError) throw new ImportSourceError(`Not readable as CSV: ${error.message}`);
    throw error;
  }
  yield* skipped;
  if (!columns) throw new ImportSourceError('The text has no header line naming the columns');
};
