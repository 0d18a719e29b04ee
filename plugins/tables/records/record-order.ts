import type { FieldErrors } from '../../../core';
import type { RecordSort } from '../model/operators';
import { ColumnSql } from './record-sql';
import type { TableShape } from './table-shape';

/** Creation order: record uuids are time-ordered (UUIDv7). */
export const CREATION_ORDER = 'r.uuid asc';

/**
 * The ORDER BY of sorts (columns by uuid or name): typed (numbers by value, dates as
 * instants, text case-insensitively), empty cells last, then creation order so pages
 * never overlap. An unknown column is a problem at `pathOf(i)`.
 */
export function compileOrder(shape: TableShape, sorts: readonly RecordSort[], pathOf: (index: number) => string, problems: FieldErrors): string {
  const keys: string[] = [];
  sorts.forEach((sort, index) => {
    const column = shape.column(sort.column);
    if (!column) {
      (problems[pathOf(index)] ??= []).push('is not a column of this table');
      return;
    }
    keys.push(`${new ColumnSql(column).sortKey} ${sort.direction === 'desc' ? 'desc' : 'asc'} nulls last`);
  });
  return [...keys, CREATION_ORDER].join(', ');
}
