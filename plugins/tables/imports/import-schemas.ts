import { Component, PageQuery, ResourceId, Timestamp, Type, Uuid, type TSchema } from '../../../core';

const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

/** The formats `format` may name on a file import; anything else is detected from the content. `audio` is read by a contributed reader (transcriptions). */
const FILE_FORMATS = ['csv', 'xlsx', 'json', 'xml', 'pdf', 'audio'] as const;

const TABLE_NAME = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Name of the table the import creates (ignored with `table_uuid`)',
});
const TABLE_UUID = Uuid({ description: 'Append to this table instead of creating one: source columns match its columns by name (case-insensitive), new ones are added' });
const DELIMITER = Type.String({
  minLength: 1,
  maxLength: 1,
  description: 'The field separator of CSV text, one character (`,` `;` tab `|` ...); detected among `,` `;` tab and `|` when left out',
});

export const ImportSchema = Component(
  'TableImport',
  Type.Object({
    uuid: Uuid(),
    table_uuid: Uuid({ description: 'The table the rows go to (created by the import, or the one it appends to)' }),
    source: Type.Union([Type.Literal('copypaste'), Type.Literal('file'), Type.Literal('website')]),
    format: Type.Union([...FILE_FORMATS.map((format) => Type.Literal(format)), Type.Literal('website')], {
      description:
        'How the source is read: `csv` (also TSV and pasted text), `xlsx`, `json`, `xml`, `pdf` (text in chunks), `audio` (transcribed, one row per segment) or `website` (crawled pages in chunks)',
    }),
    status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')], {
      description: '`queued` until a worker takes it, `running`, then `completed` (its rows are in the table, all at once) or `failed` (none are; see `message`)',
    }),
    progress: Type.Object(
      {
        done: Type.Integer({ minimum: 0 }),
        total: Nullable(Type.Integer({ minimum: 0 }), 'Null while unknown'),
        unit: Type.Union([Type.Literal('bytes'), Type.Literal('pages')], { description: '`bytes` of the upload read, or `pages` crawled' }),
      },
      { description: 'Updated a few times a second while the import runs' },
    ),
    rows_imported: Type.Integer({ minimum: 0, description: 'Rows written to the table (0 until the import completes: they commit together)' }),
    error_count: Type.Integer({ minimum: 0, description: 'Rows that were reported and skipped' }),
    errors: Type.Array(Type.Object({ row: Type.Integer(), message: Type.String() }), {
      description:
        'The first 100 rows that could not be imported, each with its row number (the nth data row of a CSV or JSON array, the sheet row of a workbook, the nth chunk of a PDF, the nth segment of a recording, the nth page of a website) and why',
    }),
    message: Nullable(Type.String(), 'Why a failed import failed; null otherwise'),
    source_name: Type.String({ description: 'The uploaded file’s name or the crawled URL, as given (shown only, never used as a path)' }),
    created_at: Timestamp(),
    started_at: Nullable(Timestamp(), 'When a worker started it; null while queued'),
    finished_at: Nullable(Timestamp(), 'When it completed or failed; null before'),
  }),
);

export const ImportParams = Type.Object({ uuid: ResourceId('tables.import') });

export const ImportListQuery = PageQuery({
  table_uuid: Type.Optional(Uuid({ description: 'Only the imports into this table' })),
});

export const CopyPasteBody = Type.Object(
  {
    text: Type.String({ description: 'Pasted CSV or TSV text, the first line naming the columns' }),
    name: Type.Optional(TABLE_NAME),
    table_uuid: Type.Optional(TABLE_UUID),
    delimiter: Type.Optional(DELIMITER),
  },
  { additionalProperties: false },
);

/** The text fields of the multipart form (all strings, as forms send them). */
export const FileImportFields = Type.Object(
  {
    name: Type.Optional(TABLE_NAME),
    table_uuid: Type.Optional(TABLE_UUID),
    format: Type.Optional(
      Type.Union(
        FILE_FORMATS.map((format) => Type.Literal(format)),
        { description: 'What the file is; detected from its content when left out. A format the content contradicts is refused (422)' },
      ),
    ),
    delimiter: Type.Optional(DELIMITER),
    sheet: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Workbook sheet to import (xlsx); the first sheet when left out' })),
    record_element: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'XML element that is one row; when left out, the child element of the root that repeats most',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebsiteBody = Type.Object(
  {
    url: Type.String({ description: 'The http(s) page to start from; same-site links are followed' }),
    name: Type.Optional(TABLE_NAME),
    table_uuid: Type.Optional(TABLE_UUID),
    max_pages: Type.Optional(Type.Integer({ minimum: 1, description: 'Fewer pages than the configured limit (TABLES_CRAWL_MAX_PAGES, 50 by default)' })),
    max_depth: Type.Optional(Type.Integer({ minimum: 0, description: 'Fewer link hops than the configured limit (TABLES_CRAWL_MAX_DEPTH, 2 by default)' })),
  },
  { additionalProperties: false },
);
