import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, createServiceRef, newUuid, type BusService, type FieldErrors, type QuotaService } from '../../../core';
import type { RecordFilter, RecordSort } from '../model/operators';
import type { RecordIndexer } from '../model/record-indexer';
import type { RecordJson } from '../model/views';
import type { AggregateOptions, AggregateResult } from '../table-records';
import { TABLE_TOPICS, type RecordDeletedEvent, type RecordEvent, type RecordUpdatedEvent } from '../topics';
import { AGGREGATE_GROUPS_MAX, compileAggregate } from './record-aggregate';
import { compileFilters } from './record-filters';
import { compileOrder } from './record-order';
import { joinSql, sql, type Sql } from './record-sql';
import { checkValues, type ValueReading, type ValuesInput } from './record-values';
import { RECORD_COLUMNS, type RecordRow, type TableShape } from './table-shape';
import { checkRowQuota } from './row-quota';

export interface RecordChange {
  uuid: string;
  values: ValuesInput;
}

export interface RecordQuery {
  filters?: readonly RecordFilter[];
  sort?: readonly RecordSort[];
  limit: number;
  offset: number;
}

/** Where the problems of a record write are reported (paths differ between the routes and TableRecords). */
export interface WritePaths {
  /** The values of the i-th record: `values` or `records.<i>.values`. */
  values(index: number): string;
  /** The uuid of the i-th record of a bulk write; without it an unknown record is not an error (it comes back null). */
  uuid?(index: number): string;
}

/** Where the problems of a query's i-th filter (`<path>.column|operator|value`) and i-th sort are reported. */
export interface QueryPaths {
  filter(index: number): string;
  sort(index: number): string;
}

/** The `caused-by` header of a write's record events (TableRecords' `cause`). */
const causedBy = (cause: string | undefined) => (cause ? { headers: { 'caused-by': cause } } : undefined);

function throwIfAny(problems: FieldErrors): void {
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

/**
 * Every read and write of records, for the routes and for TableRecords alike. A write
 * checks everything first (values against column types, that the records exist), then
 * writes in one statement, refreshes the search entries of what it wrote, and publishes
 * one record event per record, all in the caller's transaction: a 422 writes nothing,
 * and no event goes out for a write that rolls back.
 */
/** The plugin's one RecordStore, shared by the record routes and `tableRecordsRef` (not exported from index.ts). */
export const recordStoreRef = createServiceRef<RecordStore>('tables.record-store');

export class RecordStore {
  constructor(
    readonly bus: BusService,
    readonly indexer: RecordIndexer,
    /** The tenant's `table_rows` quota, checked before each insert. */
    readonly quotas?: QuotaService,
  ) {}

  private run<T>(em: EntityManager, statement: Sql): Promise<T[]> {
    return em.getConnection().execute(statement.text, statement.params, 'all', em.getTransactionContext());
  }

  /** The records of the table that match `conditions` (raw SQL: the tenant is named here, not by the ORM's filter). */
  private scope(shape: TableShape, conditions: readonly Sql[] = []): Sql {
    return joinSql([sql('r.tenant_uuid = ? and r.table_uuid = ?', shape.table.tenantUuid, shape.table.uuid), ...conditions], ' and ');
  }

  private async rowsByUuid(em: EntityManager, shape: TableShape, uuids: readonly string[], lock: boolean): Promise<Map<string, RecordRow>> {
    const where = this.scope(shape, [sql('r.uuid = any(array[?]::uuid[])', [...uuids])]);
    const rows = await this.run<RecordRow>(em, { text: `select ${RECORD_COLUMNS} from data_table_records r where ${where.text}${lock ? ' for update' : ''}`, params: where.params });
    return new Map(rows.map((row) => [row.uuid, row]));
  }

  /** Creates one record per input, in one multi-row insert. */
  async create(em: EntityManager, shape: TableShape, inputs: readonly ValuesInput[], paths: WritePaths, reading: ValueReading = 'json', cause?: string): Promise<RecordJson[]> {
    const problems: FieldErrors = {};
    const checked = inputs.map((input, index) => checkValues(shape, input, paths.values(index), reading, problems));
    throwIfAny(problems);
    await checkRowQuota(this.quotas, em, shape.table.tenantUuid, inputs.length);

    const now = new Date();
    const rows: RecordRow[] = checked.map((values) => {
      const stored: Record<string, unknown> = {};
      for (const [column, value] of values) if (value !== null) stored[column.key] = value;
      return { uuid: newUuid(), table_uuid: shape.table.uuid, values: stored, created_at: now, updated_at: now };
    });
    await this.run(em, {
      text:
        'insert into data_table_records (uuid, tenant_uuid, table_uuid, created_at, updated_at, "values") ' +
        'select x.uuid, ?, ?, ?::timestamptz, ?::timestamptz, x."values" from jsonb_to_recordset(?::jsonb) as x(uuid uuid, "values" jsonb)',
      params: [shape.table.tenantUuid, shape.table.uuid, now, now, JSON.stringify(rows.map(({ uuid, values }) => ({ uuid, values })))],
    });
    await this.indexer.refresh(em, shape.table.uuid, rows.map((row) => row.uuid));

    const records = rows.map((row) => shape.view(row));
    await this.bus.publishMany(
      TABLE_TOPICS.recordCreated,
      records.map((record) => ({ table_uuid: shape.table.uuid, table_name: shape.table.name, record }) satisfies RecordEvent),
      causedBy(cause),
    );
    return records;
  }

  /**
   * Changes the values given (null empties a cell) and keeps the others. A record whose
   * values do not change is not written and publishes nothing. Returns the records in
   * the order of `changes`; with `paths.uuid`, an unknown or repeated uuid is a 422,
   * without it an unknown record comes back null.
   */
  async update(em: EntityManager, shape: TableShape, changes: readonly RecordChange[], paths: WritePaths, reading: ValueReading = 'json', cause?: string): Promise<Array<RecordJson | null>> {
    const problems: FieldErrors = {};
    const checked = changes.map((change, index) => checkValues(shape, change.values, paths.values(index), reading, problems));
    const existing = await this.rowsByUuid(em, shape, changes.map((change) => change.uuid), true);
    if (paths.uuid) {
      const seen = new Set<string>();
      changes.forEach((change, index) => {
        if (!existing.has(change.uuid)) problems[paths.uuid!(index)] = ['is not a record of this table'];
        else if (seen.has(change.uuid)) problems[paths.uuid!(index)] = ['names a record a second time'];
        seen.add(change.uuid);
      });
    }
    throwIfAny(problems);

    const now = new Date();
    const written: Array<{ row: RecordRow; changed: string[] }> = [];
    const results = changes.map((change, index) => {
      const row = existing.get(change.uuid);
      if (!row) return null;
      const values = { ...row.values };
      const changed: string[] = [];
      for (const [column, value] of checked[index]) {
        if (isDeepStrictEqual(values[column.key] ?? null, value)) continue;
        changed.push(column.name);
        if (value === null) delete values[column.key];
        else values[column.key] = value;
      }
      if (changed.length === 0) return shape.view(row);
      const updated = { ...row, values, updated_at: now };
      written.push({ row: updated, changed });
      return shape.view(updated);
    });
    if (written.length === 0) return results;

    const scope = this.scope(shape);
    await this.run(em, {
      text:
        `update data_table_records as r set "values" = x."values", updated_at = ?::timestamptz ` +
        `from jsonb_to_recordset(?::jsonb) as x(uuid uuid, "values" jsonb) where r.uuid = x.uuid and ${scope.text}`,
      params: [now, JSON.stringify(written.map(({ row }) => ({ uuid: row.uuid, values: row.values }))), ...scope.params],
    });
    await this.indexer.refresh(em, shape.table.uuid, written.map(({ row }) => row.uuid));
    await this.bus.publishMany(
      TABLE_TOPICS.recordUpdated,
      written.map(({ row, changed }) => ({ table_uuid: shape.table.uuid, table_name: shape.table.name, record: shape.view(row), changed }) satisfies RecordUpdatedEvent),
      causedBy(cause),
    );
    return results;
  }

  /**
   * Deletes the records; returns the uuids it deleted. With `uuidPath`, every uuid must
   * be a record of the table (else a 422 at `uuidPath(i)` and nothing is deleted);
   * without it, unknown uuids are skipped.
   */
  async delete(em: EntityManager, shape: TableShape, uuids: readonly string[], uuidPath?: (index: number) => string): Promise<string[]> {
    const unique = [...new Set(uuids)];
    if (uuidPath) {
      const existing = await this.rowsByUuid(em, shape, unique, true);
      const problems: FieldErrors = {};
      uuids.forEach((uuid, index) => {
        if (!existing.has(uuid)) problems[uuidPath(index)] = ['is not a record of this table'];
      });
      throwIfAny(problems);
    }
    const where = this.scope(shape, [sql('r.uuid = any(array[?]::uuid[])', unique)]);
    const deleted = await this.run<{ uuid: string }>(em, { text: `delete from data_table_records as r where ${where.text} returning r.uuid`, params: where.params });
    const gone = deleted.map((row) => row.uuid);
    if (gone.length === 0) return gone;
    await this.indexer.remove(em, gone);
    await this.bus.publishMany(
      TABLE_TOPICS.recordDeleted,
      gone.map((uuid) => ({ table_uuid: shape.table.uuid, table_name: shape.table.name, record_uuid: uuid }) satisfies RecordDeletedEvent),
    );
    return gone;
  }

  async get(em: EntityManager, shape: TableShape, uuid: string): Promise<RecordJson | null> {
    const row = (await this.rowsByUuid(em, shape, [uuid], false)).get(uuid);
    return row ? shape.view(row) : null;
  }

  /** One page of the matching records and how many match: two statements. */
  async find(em: EntityManager, shape: TableShape, query: RecordQuery, paths: QueryPaths): Promise<{ items: RecordJson[]; total: number }> {
    const problems: FieldErrors = {};
    const conditions = compileFilters(shape, query.filters ?? [], paths.filter, problems);
    const order = compileOrder(shape, query.sort ?? [], paths.sort, problems);
    throwIfAny(problems);
    const where = this.scope(shape, conditions);
    const rows = await this.run<RecordRow>(em, {
      text: `select ${RECORD_COLUMNS} from data_table_records r where ${where.text} order by ${order} limit ? offset ?`,
      params: [...where.params, query.limit, query.offset],
    });
    const [{ total }] = await this.run<{ total: string | number }>(em, { text: `select count(*)::int8 as total from data_table_records r where ${where.text}`, params: where.params });
    return { items: rows.map((row) => shape.view(row)), total: Number(total) };
  }

  /** count/sum/avg/min/max over the matching records, or per value of a group-by column (at most AGGREGATE_GROUPS_MAX groups, by key). */
  async aggregate(em: EntityManager, shape: TableShape, options: AggregateOptions): Promise<AggregateResult> {
    const problems: FieldErrors = {};
    const compiled = compileAggregate(shape, options, problems);
    const conditions = compileFilters(shape, options.filters ?? [], (index) => `filters.${index}`, problems);
    throwIfAny(problems);
    const where = this.scope(shape, conditions);
    if (!compiled!.group) {
      const [row] = await this.run<{ value: unknown }>(em, { text: `select ${compiled!.value} as value from data_table_records r where ${where.text}`, params: where.params });
      return { value: compiled!.read(row.value) };
    }
    const rows = await this.run<{ key: unknown; value: unknown }>(em, {
      text: `select ${compiled!.group} as key, ${compiled!.value} as value from data_table_records r where ${where.text} group by 1 order by 1 nulls last limit ?`,
      params: [...where.params, AGGREGATE_GROUPS_MAX],
    });
    return { groups: rows.map((row) => ({ key: row.key, value: compiled!.read(row.value) })) };
  }
}
