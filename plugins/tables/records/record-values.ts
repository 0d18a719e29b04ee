import type { FieldErrors } from '../../../core';
import type { TableColumn } from '../entities';
import { checkValue, parseCell, type CheckedValue, type ColumnType } from '../model/column-types';
import type { TableShape } from './table-shape';

/** One value addressed by column id or column name: the spec's list form of `values`. */
export interface ValueItem {
  column_id?: string;
  column_name?: string;
  value: unknown;
}

/** `{<column uuid or name>: value}`, or `[{column_id | column_name, value}]`. */
export type ValuesInput = Record<string, unknown> | ValueItem[];

/**
 * How a value's type is checked. `json`: as the API sends it (a number is a JSON
 * number). `lenient`: a string for a number, date, boolean or url column is read the
 * way an import reads a cell ("12" is 12, "" empties the cell), for callers whose
 * values come out of text templates (flow steps).
 */
export type ValueReading = 'json' | 'lenient';

const STRING_PARSED: ReadonlySet<ColumnType> = new Set(['number', 'date', 'boolean', 'url']);

export function readValue(type: ColumnType, value: unknown, reading: ValueReading): CheckedValue {
  if (reading === 'lenient' && typeof value === 'string' && STRING_PARSED.has(type)) return parseCell(type, value);
  return checkValue(type, value);
}

/**
 * The values of one write by column, checked against their columns' types and
 * normalised (null empties a cell). Problems are added to `problems`: an unknown column at
 * `<path>.<key as sent>` (object form) or `<path>.<i>.column_id|column_name` (list
 * form), a bad value at `<path>.<column name>`, a column given twice likewise.
 */
export function checkValues(shape: TableShape, input: ValuesInput, path: string, reading: ValueReading, problems: FieldErrors): Map<TableColumn, unknown> {
  const checked = new Map<TableColumn, unknown>();
  const add = (at: string, message: string) => (problems[at] ??= []).push(message);
  const take = (column: TableColumn, value: unknown, duplicateAt: string) => {
    if (checked.has(column)) return add(duplicateAt, `names the column "${column.name}" a second time`);
    const result = readValue(column.dataType, value, reading);
    if (result.ok) checked.set(column, result.value);
    else add(`${path}.${column.name}`, result.message);
  };

  if (typeof input !== 'object' || input === null) {
    add(path, 'must be an object keyed by column, or a list of {column_id | column_name, value}');
  } else if (Array.isArray(input)) {
    input.forEach((item, index) => {
      const at = `${path}.${index}`;
      if (typeof item !== 'object' || item === null) return add(at, 'must be {column_id | column_name, value}');
      if ((item.column_id === undefined) === (item.column_name === undefined)) return add(at, 'must name its column by column_id or by column_name (one of them)');
      const column = item.column_id !== undefined ? shape.columnById(item.column_id) : shape.columnByName(item.column_name!);
      const refAt = `${at}.${item.column_id !== undefined ? 'column_id' : 'column_name'}`;
      if (!column) return add(refAt, 'is not a column of this table');
      take(column, item.value, refAt);
    });
  } else {
    for (const [ref, value] of Object.entries(input)) {
      const column = shape.column(ref);
      if (!column) add(`${path}.${ref}`, 'is not a column of this table');
      else take(column, value, `${path}.${ref}`);
    }
  }
  return checked;
}
