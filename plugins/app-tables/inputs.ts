import { Type, Uuid, type TSchema } from '../../core';
import { Options } from '../flows';
import { FILTER_OPERATORS, ORDER_DIRECTIONS } from '../tables';

/** A choice among fixed texts, as a JSON Schema `enum` (which clients render as a list, and whose error names the allowed values). */
export const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

export const TableId = Options('tables', {}, Uuid({ description: 'The table, or a reference such as `{{step1.table_uuid}}`' }));

export const RecordId = Uuid({ description: 'The record, usually a reference such as `{{step1.record.uuid}}`' });

/** Column names are at most 100 characters (the tables plugin's limit) and uuids are 36. */
export const ColumnRef = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

/** A column of the input's `table_id`, picked from the `columns` list of that table. */
export const ColumnOf = <S extends TSchema>(schema: S) => Options('columns', { params: { table_id: '{{config.table_id}}' } }, schema);

export const Values = Type.Record(Type.String(), Type.Unknown(), {
  minProperties: 1,
  description:
    'Cell values by column name or uuid (see the `columns` option list). Each is checked against its column’s type: text a string, number a finite number, ' +
    'date an ISO 8601 date or date-time, boolean true or false, url an http(s) URL, json any JSON value; `null` empties a cell. Text, which is what a ' +
    'reference inside longer text renders as, is read as an import reads a cell: `"12"` for a number, `"yes"` for a boolean, `""` empties the cell.',
});

const VALUE_OPERATORS = FILTER_OPERATORS.filter((operator) => operator.takes !== 'none').map((operator) => operator.value);

const Filter = Type.Object(
  {
    column: ColumnOf(ColumnRef('The column, by uuid or name')),
    // `operators`, not `operators_for_type`: the column's type is no member of the config to depend on.
    operator: Options('operators', {}, OneOf(FILTER_OPERATORS.map((operator) => operator.value), 'How the column is compared')),
    value: Type.Optional(Type.Unknown({ description: 'What the column is compared with: an array for `in`; none for `is_empty` and `is_not_empty`' })),
  },
  {
    additionalProperties: false,
    // Every operator but is_empty and is_not_empty compares with something: say so while the step is built, not when it runs.
    if: { properties: { operator: { enum: VALUE_OPERATORS } }, required: ['operator'] },
    then: { required: ['value'] },
  },
);

// As many as the records API's `filter` takes.
export const Filters = Type.Array(Filter, { maxItems: 20, description: 'Conditions a record must all meet (and). Text compares case-insensitively.' });

export const Sort = Type.Array(
  Type.Object(
    {
      column: ColumnOf(ColumnRef('The column, by uuid or name')),
      direction: Options('order_directions', {}, OneOf(ORDER_DIRECTIONS.map((direction) => direction.value), '`asc` or `desc`')),
    },
    { additionalProperties: false },
  ),
  { maxItems: 10, description: 'Sort keys, the most significant first; empty cells sort last, and records the keys do not order come in creation order' },
);
