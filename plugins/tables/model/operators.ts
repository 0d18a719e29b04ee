import type { ColumnType } from './column-types';

/**
 * The filter operators of record lists and of the tables flow app, with the column
 * types each applies to. One list, so the API, the app's options and its validation agree.
 */
export interface FilterOperator {
  value: string;
  label: string;
  types: readonly ColumnType[];
  /** `is_empty` and `is_not_empty` take no value; `in` takes an array. */
  takes: 'value' | 'none' | 'list';
}

const ALL: readonly ColumnType[] = ['text', 'number', 'date', 'boolean', 'json', 'url'];
const ORDERED: readonly ColumnType[] = ['number', 'date', 'text', 'url'];
const TEXTUAL: readonly ColumnType[] = ['text', 'url'];

export const FILTER_OPERATORS: readonly FilterOperator[] = [
  { value: 'eq', label: 'equals', types: ['text', 'number', 'date', 'boolean', 'url'], takes: 'value' },
  { value: 'neq', label: 'does not equal', types: ['text', 'number', 'date', 'boolean', 'url'], takes: 'value' },
  { value: 'gt', label: 'greater than', types: ORDERED, takes: 'value' },
  { value: 'gte', label: 'greater than or equal to', types: ORDERED, takes: 'value' },
  { value: 'lt', label: 'less than', types: ORDERED, takes: 'value' },
  { value: 'lte', label: 'less than or equal to', types: ORDERED, takes: 'value' },
  { value: 'contains', label: 'contains', types: [...TEXTUAL, 'json'], takes: 'value' },
  { value: 'not_contains', label: 'does not contain', types: [...TEXTUAL, 'json'], takes: 'value' },
  { value: 'starts_with', label: 'starts with', types: TEXTUAL, takes: 'value' },
  { value: 'ends_with', label: 'ends with', types: TEXTUAL, takes: 'value' },
  { value: 'in', label: 'is one of', types: ['text', 'number', 'date', 'url'], takes: 'list' },
  { value: 'is_empty', label: 'is empty', types: ALL, takes: 'none' },
  { value: 'is_not_empty', label: 'is not empty', types: ALL, takes: 'none' },
];

export const OPERATOR_VALUES = FILTER_OPERATORS.map((operator) => operator.value);
export const operatorNamed = (value: string) => FILTER_OPERATORS.find((operator) => operator.value === value);
export const operatorsFor = (type: ColumnType) => FILTER_OPERATORS.filter((operator) => operator.types.includes(type));

export interface Aggregate {
  value: 'count' | 'sum' | 'avg' | 'min' | 'max';
  label: string;
  /** Column types it applies to; `count` needs no column. */
  types: readonly ColumnType[];
}

export const AGGREGATES: readonly Aggregate[] = [
  { value: 'count', label: 'Count', types: ALL },
  { value: 'sum', label: 'Sum', types: ['number'] },
  { value: 'avg', label: 'Average', types: ['number'] },
  { value: 'min', label: 'Minimum', types: ['number', 'date', 'text'] },
  { value: 'max', label: 'Maximum', types: ['number', 'date', 'text'] },
];

export const ORDER_DIRECTIONS = [
  { value: 'asc', label: 'Ascending' },
  { value: 'desc', label: 'Descending' },
] as const;

/** A filter as the API and the flow app take it: the column by uuid or name. */
export interface RecordFilter {
  column: string;
  operator: string;
  value?: unknown;
}

export interface RecordSort {
  column: string;
  direction: 'asc' | 'desc';
}
