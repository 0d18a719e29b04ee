import type { FieldErrors } from '../../../core';
import { AGGREGATES } from '../model/operators';
import type { AggregateOptions } from '../table-records';
import { ColumnSql } from './record-sql';
import type { TableShape } from './table-shape';

/** Most groups one grouped aggregate returns (by group key). */
export const AGGREGATE_GROUPS_MAX = 1000;

export interface AggregateSql {
  /** The aggregate over the matching records. */
  value: string;
  /** The group key (the group-by column's value as jsonb), when grouped. */
  group?: string;
  /** Turns the database's answer into the JSON value: counts come back as int8 text. */
  read(value: unknown): unknown;
}

/**
 * The SELECT expressions of an aggregate (AGGREGATES, with the column types each applies
 * to): `count` counts records, or the non-empty cells of a column; `sum` and `avg` take
 * numbers; `min` and `max` numbers, dates (returned as stored) and text. Problems go to
 * `problems` under `aggregate`, `column` and `group_by`.
 */
export function compileAggregate(shape: TableShape, options: AggregateOptions, problems: FieldErrors): AggregateSql | undefined {
  const add = (path: string, message: string) => (problems[path] ??= []).push(message);
  const aggregate = AGGREGATES.find((candidate) => candidate.value === options.aggregate);
  if (!aggregate) add('aggregate', `must be one of: ${AGGREGATES.map((candidate) => candidate.value).join(', ')}`);
  const column = options.column !== undefined && options.column !== '' ? shape.column(options.column) : undefined;
  if (options.column !== undefined && options.column !== '' && !column) add('column', 'is not a column of this table');
  else if (aggregate && aggregate.value !== 'count' && !column) add('column', `is required for ${aggregate.value}`);
  else if (aggregate && column && !aggregate.types.includes(column.dataType)) {
    add('column', `${aggregate.value} does not apply to the ${column.dataType} column "${column.name}" (it takes ${aggregate.types.join(', ')} columns)`);
  }
  const groupColumn = options.groupBy !== undefined && options.groupBy !== '' ? shape.column(options.groupBy) : undefined;
  if (options.groupBy !== undefined && options.groupBy !== '' && !groupColumn) add('group_by', 'is not a column of this table');
  if (!aggregate || Object.keys(problems).length > 0) return undefined;

  const group = groupColumn ? `nullif(${new ColumnSql(groupColumn).json}, 'null'::jsonb)` : undefined;
  const asNumber = (value: unknown) => (value === null ? null : Number(value));
  if (!column) return { value: 'count(*)::int8', group, read: asNumber };
  const expressions = new ColumnSql(column);
  switch (aggregate.value) {
    case 'count':
      return { value: `(count(*) filter (where not ${expressions.empty}))::int8`, group, read: asNumber };
    case 'sum':
      return { value: `coalesce(sum(${expressions.number}), 0)::float8`, group, read: asNumber };
    case 'avg':
      return { value: `avg(${expressions.number})::float8`, group, read: asNumber };
    default: {
      const fn = aggregate.value;
      if (column.dataType === 'number') return { value: `${fn}(${expressions.number})::float8`, group, read: asNumber };
      // Stored dates (`YYYY-MM-DD` or ISO 8601 UTC) sort by time as bytes, so the answer keeps the stored form.
      if (column.dataType === 'date') return { value: `${fn}(${expressions.text} collate "C")`, group, read: (value) => value };
      return { value: `${fn}(nullif(${expressions.text}, ''))`, group, read: (value) => value };
    }
  }
}
