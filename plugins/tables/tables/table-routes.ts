import {
  DataEnvelope,
  PageQuery,
  ValidationError,
  defineRoute,
  deleteRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type BusService,
  type FieldErrors,
} from '../../../core';
import { DataTable } from '../entities';
import { likePattern } from './like-pattern';
import { addColumns, checkColumnSpecs } from './column-schema';
import { fieldRoutes } from './field-routes';
import { findTable } from './find-table';
import { markIndexStale } from './index-staleness';
import { NOT_A_SEARCH_LANGUAGE, isSearchLanguage } from './search-language';
import { TableCreateBody, TableListQuery, TableParams, TablePatchBody, TableSchema } from './table-schemas';
import { renderTable, renderTables, tableJson } from './table-view';

const tags = ['tables'];

/**
 * Tables and their columns: `/api/v1/data/tables` and `/api/v1/data/{uuid}`, then the
 * spec's `/fields`. The static `/data/tables` is registered before `/data/{uuid}`, which
 * would otherwise take it for a table's uuid.
 */
export const tableRoutes = ({ bus, searchLanguage }: { bus: BusService; searchLanguage: string }): AnyRoute[] => [
  createTable(searchLanguage),
  listTables,
  readTable,
  changeTable(bus),
  deleteTable,
  ...fieldRoutes(bus),
];

const createTable = (searchLanguage: string) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/tables',
    summary: 'Create an empty table with a typed column schema',
    description:
      'Column types: `text`, `number` (a finite JSON number), `date` (ISO 8601 date or date-time, stored as `YYYY-MM-DD` or UTC), ' +
      '`boolean`, `json` (any JSON value), `url` (http or https). Another type is refused (422 at `columns.<i>.data_type`), ' +
      'as is a column name used twice (case-insensitive). Fill it with `POST /api/v1/data/{uuid}/records` or an import.',
    tags,
    body: TableCreateBody,
    status: 201,
    response: DataEnvelope(TableSchema),
    handler: async ({ body, em }) => {
      const problems: FieldErrors = { ...checkColumnSpecs(body.columns, [], 'columns') };
      const name = body.name.trim();
      if (name === '') problems.name = ['must not be empty'];
      if (body.search_language !== undefined && !(await isSearchLanguage(em, body.search_language))) problems.search_language = [NOT_A_SEARCH_LANGUAGE];
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const table = em.create(DataTable, {
        name,
        description: body.description ?? '',
        // The operator's default (TABLES_SEARCH_LANGUAGE), as for tables an import creates.
        searchLanguage: body.search_language ?? searchLanguage,
      });
      const columns = await addColumns(em, table, body.columns);
      return { data: tableJson(table, columns, 0) };
    },
  });

const listTables = listRoute({
  path: '/api/v1/data/tables',
  summary: 'List tables, newest first',
  description: 'Each table comes with its columns, its record count and the state of its search index.',
  tags,
  query: PageQuery(TableListQuery),
  item: TableSchema,
  page: async ({ query, em, tenant }) => {
    const where = query.search ? { name: { $ilike: likePattern(query.search, 'contains') } } : {};
    const [tables, total] = await em.findAndCount(DataTable, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [await renderTables(em, tenant.uuid, tables), total];
  },
});

const readTable = readRoute({
  path: '/api/v1/data/:uuid',
  summary: 'Read a table',
  description: 'An unknown table answers 404 `{success: false, message: "Data not found", data: [...]}`.',
  tags,
  params: TableParams,
  resource: TableSchema,
  read: async ({ params, em }) => renderTable(em, await findTable(em, params.uuid)),
});

const changeTable = (bus: BusService) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/data/:uuid',
    summary: 'Rename a table, or change its description or search language',
    description:
      'Members left out keep their value; read-only members (columns included: they change through `/fields`) are ignored, so what was read can be sent back. ' +
      'A new `search_language` (a text search configuration of the database, else 422) marks the search index `stale` and queues a sync that rebuilds it.',
    tags,
    params: TableParams,
    body: TablePatchBody,
    errors: [404],
    response: DataEnvelope(TableSchema),
    handler: async ({ params, body, em }) => {
      const table = await findTable(em, params.uuid, { lock: true });
      const problems: FieldErrors = {};
      const name = body.name?.trim();
      if (name === '') problems.name = ['must not be empty'];
      const language = body.search_language;
      const languageChanges = language !== undefined && language !== table.searchLanguage;
      if (languageChanges && !(await isSearchLanguage(em, language))) problems.search_language = [NOT_A_SEARCH_LANGUAGE];
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      if (name !== undefined) table.name = name;
      if (body.description !== undefined) table.description = body.description;
      if (languageChanges) {
        table.searchLanguage = language;
        await markIndexStale(em, bus, table);
      }
      await em.flush();
      return { data: await renderTable(em, table) };
    },
  });

const deleteTable = deleteRoute({
  path: '/api/v1/data/:uuid',
  summary: 'Delete a table',
  description: 'Deletes the table with its columns, records, search index, imports and agent assignments.',
  tags,
  params: TableParams,
  message: 'Table deleted',
  remove: async ({ params, em }) => {
    const table = await findTable(em, params.uuid, { lock: true });
    await em.nativeDelete(DataTable, { uuid: table.uuid });
  },
});
