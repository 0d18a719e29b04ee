import type { FieldErrors } from '../../../core';
import type { TableColumn } from '../entities';
import type { ColumnType } from '../model/column-types';
import { OPERATOR_VALUES, operatorNamed, operatorsFor, type FilterOperator, type RecordFilter } from '../model/operators';
import { likePattern } from '../tables/like-pattern';
import { readValue } from './record-values';
import { ColumnSql, dateInstant, sql, type Sql } from './record-sql';
import type { TableShape } from './table-shape';

const COMPARISONS: Record<string, string> = { eq: '=', neq: 'is distinct from', gt: '>', gte: '>=', lt: '<', lte: '<=' };
const TEXT_SEARCHES = new Set(['contains', 'not_contains', 'starts_with', 'ends_with']);

/** How each type compares: the expression, the cast of a parameter, and the parameter made from a checked value. */
function comparable(column: ColumnSql, type: ColumnType): { left: string; cast: string; param: (value: unknown) => unknown } {
  switch (type) {
    case 'number':
      return { left: column.number, cast: 'numeric', param: (value) => value };
    case 'date':
      return { left: column.instant, cast: 'timestamptz', param: (value) => dateInstant(String(value)) };
    case 'boolean':
      return { left: column.boolean, cast: 'boolean', param: (value) => value };
    default:
      // Text and URLs compare case-insensitively, as a person reading the table would.
      return { left: `lower(${column.text})`, cast: 'text', param: (value) => String(value).toLowerCase() };
  }
}

/** A filter's value as the list `in` takes: an array, or a comma-separated string (the query string's form). */
function listOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(',').filter((item) => item.trim() !== '');
  return undefined;
}

function condition(column: TableColumn, operator: FilterOperator, value: unknown, at: string, add: (path: string, message: string) => void): Sql | undefined {
  const expressions = new ColumnSql(column);
  const type = column.dataType;
  if (operator.takes === 'none') return sql(operator.value === 'is_empty' ? expressions.empty : `not ${expressions.empty}`);

  if (TEXT_SEARCHES.has(operator.value)) {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || text === '') return void add(`${at}.value`, `is required: the text to look for`);
    const subject = type === 'json' ? `(${expressions.json})::text` : expressions.text;
    const where = operator.value === 'not_contains' ? 'contains' : (operator.value as 'contains' | 'starts_with' | 'ends_with');
    const pattern = likePattern(text, where);
    // "Does not contain" also matches empty cells: nothing in them contains the text.
    return operator.value === 'not_contains' ? sql(`coalesce(${subject}, '') not ilike ?`, pattern) : sql(`${subject} ilike ?`, pattern);
  }

  const { left, cast, param } = comparable(expressions, type);
  if (operator.takes === 'list') {
    const items = listOf(value);
    if (!items || items.length === 0) return void add(`${at}.value`, 'is required: a list of values (comma-separated in a query string)');
    const params: unknown[] = [];
    for (const item of items) {
      const checked = readValue(type, item, 'lenient');
      // Text cells' messages quote the value already; JSON values' do not.
      if (!checked.ok) return void add(`${at}.value`, checked.message.startsWith('"') ? checked.message : `${JSON.stringify(item)} ${checked.message}`);
      if (checked.value === null) return void add(`${at}.value`, 'must not list an empty value (use is_empty)');
      params.push(param(checked.value));
    }
    return sql(`${left} = any(array[?]::${cast}[])`, params);
  }

  if (value === undefined || value === null || value === '') return void add(`${at}.value`, `is required for the operator ${operator.value}`);
  const checked = readValue(type, value, 'lenient');
  if (!checked.ok) return void add(`${at}.value`, checked.message);
  if (checked.value === null) return void add(`${at}.value`, `is required for the operator ${operator.value}`);
  return sql(`${left} ${COMPARISONS[operator.value]} ?::${cast}`, param(checked.value));
}

/**
 * The WHERE conditions of filters (`column` by uuid or name, an operator of
 * FILTER_OPERATORS that applies to the column's type, a value read for that type).
 * Problems go to `problems` under `<pathOf(i)>.column|operator|value`.
 */
export function compileFilters(shape: TableShape, filters: readonly RecordFilter[], pathOf: (index: number) => string, problems: FieldErrors): Sql[] {
  const add = (path: string, message: string) => (problems[path] ??= []).push(message);
  const conditions: Sql[] = [];
  filters.forEach((filter, index) => {
    const at = pathOf(index);
    const column = typeof filter.column === 'string' ? shape.column(filter.column) : undefined;
    const operator = typeof filter.operator === 'string' ? operatorNamed(filter.operator) : undefined;
    if (!column) add(`${at}.column`, 'is not a column of this table');
    if (!operator) add(`${at}.operator`, `must be one of: ${OPERATOR_VALUES.join(', ')}`);
    if (!column || !operator) return;
    if (!operator.types.includes(column.dataType)) {
      return add(`${at}.operator`, `does not apply to the ${column.dataType} column "${column.name}" (use one of: ${operatorsFor(column.dataType).map((o) => o.value).join(', ')})`);
    }
    const piece = condition(column, operator, filter.value, at, add);
    if (piece) conditions.push(piece);
  });
  return conditions;
}
