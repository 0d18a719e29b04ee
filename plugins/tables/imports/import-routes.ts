import { createReadStream } from 'node:fs';
import {
  DataEnvelope,
  NotFoundError,
  ValidationError,
  defineRoute,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type BusService,
  type FieldErrors,
} from '../../../core';
import { TableImport } from '../entities';
import { isHttpUrl } from '../../../core';
import { findTable } from '../tables/find-table';
import type { TablesSettings } from '../tables-config';
import { createImport } from './create-import';
import { CONTENT_SLICE_BYTES, slicesOf } from './import-content';
import { CopyPasteBody, FileImportFields, ImportListQuery, ImportParams, ImportSchema, WebsiteBody } from './import-schemas';
import { importJson } from './import-view';
import type { MediaReaders } from './media-readers';
import { AUDIO_NEEDS_TRANSCRIPTION, uploadFormat } from './upload-format';

const tags = ['tables'];
const ImportEnvelope = DataEnvelope(ImportSchema);

const TARGET =
  'Without `table_uuid` the import creates a table (named `name`, else after the source) whose column types are inferred from the first 1,000 rows ' +
  '(number, date, boolean, url, else text); with it, the rows are appended: source columns match the table’s by name (case-insensitive) and new ones are added. ' +
  'An unknown `table_uuid` is a 404. ';
const ASYNC =
  'The import runs as a background job: the answer is 202 with the import, to be followed at `GET /api/v1/data/imports/{uuid}` (status, progress, rows imported, ' +
  'bad rows with their row numbers: a bad row is reported and skipped, never fatal). The rows commit all at once when the job completes; the table’s search index ' +
  'is then refreshed by a sync.';

/** The file's name as given, without any folders a client put in it: shown, never used as a path. */
const baseName = (name: string) => name.split(/[\\/]/).pop() ?? '';
const withoutExtension = (name: string) => name.replace(/\.[A-Za-z0-9]{1,5}$/, '');

type ImportRouteDeps = { bus: BusService; settings: TablesSettings; media: MediaReaders };

/**
 * Imports of pasted text, files and websites, and their progress. `/data/imports` must come
 * before the table routes' `/data/:uuid`, which would take `imports` for a table's uuid.
 */
export const importRoutes = (deps: ImportRouteDeps): AnyRoute[] => [copyPasteImport(deps), fileImport(deps), websiteImport(deps), listImports, readImport];

const copyPasteImport = ({ bus, settings }: ImportRouteDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/import/copypaste',
    summary: 'Import pasted CSV or TSV text',
    description:
      'The first line names the columns. The delimiter is `delimiter`, else detected among comma, semicolon, tab and `|`; fields may be quoted ' +
      '(`"a, b"`, with `""` for a quote and line breaks inside). Empty text is a 422. ' +
      TARGET +
      ASYNC,
    tags,
    body: CopyPasteBody,
    status: 202,
    response: ImportEnvelope,
    errors: [404],
    handler: async ({ body, em, tenant }) => {
      const problems: FieldErrors = {};
      if (body.text.trim() === '') problems.text = ['must not be empty'];
      if (body.delimiter !== undefined && /["\r\n]/.test(body.delimiter)) problems.delimiter = ['cannot be a quote or a line break'];
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const content = Buffer.from(body.text, 'utf8');
      const job = await createImport(em, bus, settings, tenant, {
        source: 'copypaste',
        format: 'csv',
        sourceName: '',
        options: body.delimiter !== undefined ? { delimiter: body.delimiter } : {},
        tableUuid: body.table_uuid,
        tableName: body.name ?? 'Pasted data',
        progressUnit: 'bytes',
        content: { slices: slicesOf(content), size: content.length },
      });
      return { data: importJson(job) };
    },
  });

const fileImport = ({ bus, settings, media }: ImportRouteDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/import/file',
    summary: 'Import an uploaded file (CSV, TSV, Excel, JSON, XML, PDF, audio)',
    description:
      'A `multipart/form-data` upload: the file as `file`, options as text fields. What the file is comes from its content: CSV or TSV text (UTF-8), ' +
      'an Excel workbook (.xlsx: the sheet `sheet`, else the first; its first row names the columns), a JSON array of objects (their members are the columns), ' +
      'XML (one row per repeated element: `record_element`, else the child of the root that repeats most; child elements and `@attributes` are the columns) ' +
      'a PDF (its text in chunks: columns `page` and `content`) ' +
      'or audio, where a plugin that transcribes it is installed and configured (the transcriptions plugin with TRANSCRIPTION_BASE_URL: one row per segment, ' +
      'columns `start` and `end` in seconds, `speaker` as the provider labels it, else empty, and `text`; its formats, TRANSCRIPTION_MAX_FILE_MB and ' +
      'TRANSCRIPTION_MAX_SECONDS apply, a refusal being a 422 at `file`; its progress stays at 0 bytes until the transcription is done). ' +
      `A \`format\` field or a file name extension that the content contradicts is a 422 at \`file\`, as is content of another kind; audio without a transcription provider answers 422 "${AUDIO_NEEDS_TRANSCRIPTION}". ` +
      'A file over the upload limit (HTTP_UPLOAD_LIMIT, 50 MiB by default) is a 413. The file name is kept as `source_name` only. ' +
      TARGET +
      ASYNC,
    tags,
    upload: { field: 'file', description: 'The file to import' },
    body: FileImportFields,
    status: 202,
    response: ImportEnvelope,
    errors: [404, 413],
    handler: async ({ body, file, em, tenant }) => {
      const upload = file!;
      const { format, options: read } = await uploadFormat(upload, body.format, media);
      const name = baseName(upload.originalName);
      const options = {
        ...read,
        ...(format === 'csv' && body.delimiter !== undefined ? { delimiter: body.delimiter } : {}),
        ...(format === 'xlsx' && body.sheet !== undefined ? { sheet: body.sheet } : {}),
        ...(format === 'xml' && body.record_element !== undefined ? { record_element: body.record_element } : {}),
      };
      const job = await createImport(em, bus, settings, tenant, {
        source: 'file',
        format,
        sourceName: name,
        options,
        tableUuid: body.table_uuid,
        tableName: body.name ?? (withoutExtension(name).trim() || 'Imported file'),
        progressUnit: 'bytes',
        content: { slices: createReadStream(upload.path, { highWaterMark: CONTENT_SLICE_BYTES }), size: upload.size },
      });
      return { data: importJson(job) };
    },
  });

const websiteImport = ({ bus, settings }: ImportRouteDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/import/website',
    summary: 'Import a website’s text by crawling it',
    description:
      'Crawls from `url` (http or https) through same-site links, breadth first, honouring robots.txt: at most `max_pages` pages and `max_depth` links away ' +
      '(each may only lower the configured limits, TABLES_CRAWL_MAX_PAGES and TABLES_CRAWL_MAX_DEPTH: 50 pages and depth 2 by default; more is a 422), ' +
      'waiting at most TABLES_CRAWL_PAGE_TIMEOUT_MS per page. Each page’s main text is cut into chunks, one row each: columns `url`, `title`, `content`, `chunk`. ' +
      'A page that fails is a bad row; a start page that cannot be read fails the import. Progress counts pages. ' +
      TARGET +
      ASYNC,
    tags,
    body: WebsiteBody,
    status: 202,
    response: ImportEnvelope,
    errors: [404],
    handler: async ({ body, em, tenant }) => {
      const problems: FieldErrors = {};
      const url = body.url.trim();
      if (!isHttpUrl(url)) problems.url = ['must be an http(s) URL'];
      if (body.max_pages !== undefined && body.max_pages > settings.crawlMaxPages) problems.max_pages = [`must be at most ${settings.crawlMaxPages} (the configured limit)`];
      if (body.max_depth !== undefined && body.max_depth > settings.crawlMaxDepth) problems.max_depth = [`must be at most ${settings.crawlMaxDepth} (the configured limit)`];
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const job = await createImport(em, bus, settings, tenant, {
        source: 'website',
        format: 'website',
        sourceName: url,
        options: { url, ...(body.max_pages !== undefined ? { max_pages: body.max_pages } : {}), ...(body.max_depth !== undefined ? { max_depth: body.max_depth } : {}) },
        tableUuid: body.table_uuid,
        tableName: body.name ?? new URL(url).host,
        progressUnit: 'pages',
      });
      return { data: importJson(job) };
    },
  });

const listImports = listRoute({
  path: '/api/v1/data/imports',
  summary: 'List imports, newest first',
  description: 'Every import of the workspace, or only those into `table_uuid` (an unknown table is a 404). Imports are kept as long as their table.',
  tags,
  query: ImportListQuery,
  errors: [404],
  item: ImportSchema,
  page: async ({ query, em }) => {
    if (query.table_uuid !== undefined) await findTable(em, query.table_uuid);
    const [jobs, total] = await em.findAndCount(TableImport, query.table_uuid !== undefined ? { tableUuid: query.table_uuid } : {}, {
      orderBy: { createdAt: 'desc', uuid: 'desc' },
      ...pageWindow(query),
    });
    return [jobs.map(importJson), total];
  },
});

const readImport = readRoute({
  path: '/api/v1/data/imports/:uuid',
  summary: 'Follow an import',
  description:
    '`status` goes `queued` -> `running` -> `completed` or `failed` (with `message`). While running, `progress` counts bytes of the upload read (or pages crawled) ' +
    'out of `total`. `rows_imported` is set on completion; `errors` lists the first 100 rows that were skipped, `error_count` counts them all.',
  tags,
  params: ImportParams,
  resource: ImportSchema,
  read: async ({ params, em }) => {
    const job = await findByUuid(em, TableImport, params.uuid);
    if (!job) throw new NotFoundError('Import not found');
    return importJson(job);
  },
});
