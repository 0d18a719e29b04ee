import { ValidationError, type FieldErrors, type OrmService } from '../../../core';
import { DataTable } from '../entities';
import { columnJson } from '../model/record-view';
import { BULK_LIMIT, TableNotFoundError } from '../model/table-errors';
import type { TableRecords } from '../table-records';
import { isUuid } from '../tables/find-table';
import { likePattern } from '../tables/like-pattern';
import type { RecordStore } from './record-store';
import { TableShape } from './table-shape';

/** Records `find` returns when the caller sets no limit. */
export const FIND_DEFAULT_LIMIT = 100;

const LISTED_TABLES_MAX = 100;

function checkWindow(limit: number, offset: number, max: number): void {
  const problems: FieldErrors = {};
  if (!Number.isInteger(limit) || limit < 1 || limit > max) problems.limit = [`must be an integer from 1 to ${max}`];
  if (!Number.isInteger(offset) || offset < 0) problems.offset = ['must be an integer of at least 0'];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

/**
 * TableRecords for other plugins (the tables flow app, agent lookups): the record
 * store the routes use, in the current request's or message's EntityManager and
 * transaction. Values are read leniently: flow steps fill them from text templates, so
 * "12" is a fine number and "" empties a cell (see ValueReading).
 */
export function createTableRecords(orm: OrmService, store: RecordStore): TableRecords {
  const shapeOf = (tableUuid: string) => TableShape.load(orm.em, tableUuid);
  return {
    async listTables({ search, limit = LISTED_TABLES_MAX, offset = 0 } = {}) {
      checkWindow(limit, offset, LISTED_TABLES_MAX);
      const where = search ? { name: { $ilike: likePattern(search, 'contains') } } : {};
      const [tables, total] = await orm.em.findAndCount(DataTable, where, { orderBy: { name: 'asc', uuid: 'asc' }, limit, offset });
      return { items: tables.map((table) => ({ uuid: table.uuid, name: table.name })), total };
    },

    async outline(tableUuid) {
      try {
        const shape = await shapeOf(tableUuid);
        return { uuid: shape.table.uuid, name: shape.table.name, columns: shape.columns.map(columnJson) };
      } catch (error) {
        if (error instanceof TableNotFoundError) return null;
        throw error;
      }
    },

    async insert(tableUuid, values, { cause } = {}) {
      const [record] = await store.create(orm.em, await shapeOf(tableUuid), [values], { values: () => 'values' }, 'lenient', cause);
      return record;
    },

    async update(tableUuid, recordUuid, values, { cause } = {}) {
      const shape = await shapeOf(tableUuid);
      // A flow's record id may be any text: what is not a uuid names no record.
      if (!isUuid(recordUuid)) return null;
      const [record] = await store.update(orm.em, shape, [{ uuid: recordUuid, values }], { values: () => 'values' }, 'lenient', cause);
      return record;
    },

    async delete(tableUuid, recordUuid) {
      const shape = await shapeOf(tableUuid);
      if (!isUuid(recordUuid)) return false;
      const gone = await store.delete(orm.em, shape, [recordUuid]);
      return gone.length > 0;
    },

    async find(tableUuid, { filters = [], sort = [], limit = FIND_DEFAULT_LIMIT, offset = 0 } = {}) {
      checkWindow(limit, offset, BULK_LIMIT);
      return store.find(orm.em, await shapeOf(tableUuid), { filters, sort, limit, offset }, { filter: (index) => `filters.${index}`, sort: (index) => `sort.${index}.column` });
    },

    async aggregate(tableUuid, options) {
      return store.aggregate(orm.em, await shapeOf(tableUuid), options);
    },
  };
}
