import { DataEnvelope, NotFoundError, ValidationError, defineRoute, deleteRoute, listRoute, pageWindow, readRoute, type AnyRoute, type FieldErrors } from '../../../core';
import type { RecordFilter } from '../model/operators';
import type { RecordStore } from './record-store';
import {
  BulkDeleted,
  BulkRecords,
  RecordBulkDeleteBody,
  RecordBulkUpdateBody,
  RecordCreateBody,
  RecordCreated,
  RecordListQuery,
  RecordParams,
  RecordSchema,
  RecordUpdateBody,
  RecordsParams,
} from './record-schemas';
import { TableShape } from './table-shape';

const tags = ['tables'];
const RECORD_NOT_FOUND = 'Record not found';

/**
 * The query's filters as a list, and where each one's problems are reported: the
 * extended query parser gives `filter[0][column]=..` as a list and `filter[column]=..`
 * as one object.
 */
function filtersOf(filter: unknown): { filters: RecordFilter[]; pathOf: (index: number) => string } {
  if (filter === undefined) return { filters: [], pathOf: (index) => `filter.${index}` };
  if (!Array.isArray(filter)) return { filters: [filter as RecordFilter], pathOf: () => 'filter' };
  return { filters: filter as RecordFilter[], pathOf: (index) => `filter.${index}` };
}

/** Filters must name their column and operator: the query schema leaves both optional so that a missing one is named at its own path. */
function requireFilterMembers(filters: readonly RecordFilter[], pathOf: (index: number) => string): void {
  const problems: FieldErrors = {};
  filters.forEach((filter, index) => {
    if (filter.column === undefined) problems[`${pathOf(index)}.column`] = ['is required'];
    if (filter.operator === undefined) problems[`${pathOf(index)}.operator`] = ['is required'];
  });
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

/** A table's records: one or many at a time. */
export const recordRoutes = (store: RecordStore): AnyRoute[] => [
  createRecords(store),
  listRecords(store),
  updateRecords(store),
  deleteRecords(store),
  readRecord(store),
  updateRecord(store),
  deleteRecord(store),
];

const createRecords = (store: RecordStore) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/:uuid/records',
    summary: 'Create one record, or many at once',
    description:
      '`{values}` creates one record and answers `{data: record}`; `{records: [{values}, ...]}` creates 1 to 1000 in one statement and one transaction and ' +
      'answers `{data: {items, count}}`. Columns left out are empty. Every value is checked against its column’s type first: one bad value refuses the whole ' +
      'request (422) and nothing is written. Each new record is published as `tables.record.created` and is searchable at once.',
    tags,
    params: RecordsParams,
    body: RecordCreateBody,
    status: 201,
    errors: [404],
    response: RecordCreated,
    handler: async ({ params, body, em }) => {
      if ((body.values === undefined) === (body.records === undefined)) {
        throw ValidationError.field('values', 'send either values (one record) or records (many), one of them');
      }
      const shape = await TableShape.load(em, params.uuid);
      if (body.values !== undefined) {
        const [record] = await store.create(em, shape, [body.values], { values: () => 'values' });
        return { data: record };
      }
      const items = await store.create(
        em,
        shape,
        body.records!.map((record) => record.values),
        { values: (index) => `records.${index}.values` },
      );
      return { data: { items, count: items.length } };
    },
  });

const listRecords = (store: RecordStore) =>
  listRoute({
    path: '/api/v1/data/:uuid/records',
    summary: 'List records, filtered and sorted',
    description:
      'Pages of records (`page`, `per_page` up to 100) that match every filter, in creation order unless `sort` names a column. ' +
      'Example: `GET /api/v1/data/{uuid}/records?filter[0][column]=price&filter[0][operator]=lte&filter[0][value]=20&sort=name&direction=asc`.',
    tags,
    params: RecordsParams,
    query: RecordListQuery,
    errors: [404],
    item: RecordSchema,
    page: async ({ params, query, em }) => {
      const { filters, pathOf } = filtersOf(query.filter);
      requireFilterMembers(filters, pathOf);
      const shape = await TableShape.load(em, params.uuid);
      const sort = query.sort === undefined ? [] : [{ column: query.sort, direction: query.direction === 'desc' ? ('desc' as const) : ('asc' as const) }];
      const { items, total } = await store.find(em, shape, { filters, sort, ...pageWindow(query) }, { filter: pathOf, sort: () => 'sort' });
      return [items, total];
    },
  });

const updateRecords = (store: RecordStore) =>
  defineRoute({
    method: 'PUT',
    path: '/api/v1/data/:uuid/records',
    summary: 'Change many records at once',
    description:
      '1 to 1000 records, each `{uuid, values}`: the values given change, the others are kept, null empties a cell. All or none: a bad value ' +
      '(422 at `records.<i>.values.<column name>`) or a uuid that is not a record of this table (422 at `records.<i>.uuid`) refuses the whole request. ' +
      'Each record whose values change is published as `tables.record.updated` with the names of the changed columns.',
    tags,
    params: RecordsParams,
    body: RecordBulkUpdateBody,
    errors: [404],
    response: DataEnvelope(BulkRecords),
    handler: async ({ params, body, em }) => {
      const shape = await TableShape.load(em, params.uuid);
      const records = await store.update(em, shape, body.records, { values: (index) => `records.${index}.values`, uuid: (index) => `records.${index}.uuid` });
      const items = records.filter((record) => record !== null);
      return { data: { items, count: items.length } };
    },
  });

const deleteRecords = (store: RecordStore) =>
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/data/:uuid/records',
    summary: 'Delete many records at once',
    description:
      '1 to 1000 record uuids, all or none: a uuid that is not a record of this table refuses the whole request (422 at `uuids.<i>`). ' +
      'Each deleted record is published as `tables.record.deleted`.',
    tags,
    params: RecordsParams,
    body: RecordBulkDeleteBody,
    errors: [404],
    response: BulkDeleted,
    handler: async ({ params, body, em }) => {
      const shape = await TableShape.load(em, params.uuid);
      const gone = await store.delete(em, shape, body.uuids, (index) => `uuids.${index}`);
      return { success: true, message: 'Records deleted', data: { deleted: gone.length } };
    },
  });

const readRecord = (store: RecordStore) =>
  readRoute({
    path: '/api/v1/data/:uuid/records/:record',
    summary: 'Read a record',
    tags,
    params: RecordParams,
    resource: RecordSchema,
    read: async ({ params, em }) => {
      const record = await store.get(em, await TableShape.load(em, params.uuid), params.record);
      if (!record) throw new NotFoundError(RECORD_NOT_FOUND);
      return record;
    },
  });

const updateRecord = (store: RecordStore) =>
  defineRoute({
    method: 'PUT',
    path: '/api/v1/data/:uuid/records/:record',
    summary: 'Change a record',
    description:
      'The values given change (addressed by column id or name), the others are kept; null empties a cell. What was read may be sent back: ' +
      'read-only members are ignored. A change is published as `tables.record.updated` with the names of the changed columns.',
    tags,
    params: RecordParams,
    body: RecordUpdateBody,
    errors: [404],
    response: DataEnvelope(RecordSchema),
    handler: async ({ params, body, em }) => {
      const shape = await TableShape.load(em, params.uuid);
      const [record] = await store.update(em, shape, [{ uuid: params.record, values: body.values }], { values: () => 'values' });
      if (!record) throw new NotFoundError(RECORD_NOT_FOUND);
      return { data: record };
    },
  });

const deleteRecord = (store: RecordStore) =>
  deleteRoute({
    path: '/api/v1/data/:uuid/records/:record',
    summary: 'Delete a record',
    description: 'Published as `tables.record.deleted`.',
    tags,
    params: RecordParams,
    message: 'Record deleted',
    remove: async ({ params, em }) => {
      const [gone] = await store.delete(em, await TableShape.load(em, params.uuid), [params.record]);
      if (!gone) throw new NotFoundError(RECORD_NOT_FOUND);
    },
  });
