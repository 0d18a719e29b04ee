import type { Readable } from 'node:stream';
import type { Egress } from '../../../core';
import type { TableImport } from '../entities';
import type { ColumnType } from '../model/column-types';

/**
 * What an import reads. A reader turns its source (the upload's bytes, or a website)
 * into columns and rows; the import job does the rest for every format alike: types
 * inferred from the first rows, cells checked against them (a bad cell reports its row
 * and skips it), rows written in batches, progress kept.
 */
export type ImportItem =
  /** First, once: the column names in order, with types where the source knows them. */
  | { kind: 'columns'; names: string[]; types?: Array<ColumnType | undefined> }
  /**
   * A row, `row` counted from 1 as the user sees it (a CSV's line after the header, a
   * JSON array's index + 1, a sheet's row number). Cells in column order: strings are
   * parsed (`parseCell`), numbers, booleans, Dates and objects taken as they are.
   */
  | { kind: 'row'; row: number; cells: unknown[] }
  /** A row the source could not read (a CSV line with the wrong number of fields). */
  | { kind: 'bad-row'; row: number; message: string };

export interface ImportReaderContext {
  import: TableImport;
  /** The uploaded or pasted content, streamed from the database (file and copypaste imports). */
  content(): Readable;
  /** Size of the content in bytes. */
  contentSize: number;
  egress: Egress;
  crawl: { maxPages: number; maxDepth: number; pageTimeoutMs: number };
  /** Reports progress in the import's unit (bytes read, pages crawled); written at most every few hundred ms. */
  progress(done: number, total: number | null): void;
}

export type ImportReader = (context: ImportReaderContext) => AsyncIterable<ImportItem>;

/** A source the job cannot read at all (not a valid workbook, a site that answers nothing): the import fails with this message. */
export class ImportSourceError extends Error {}
