import { Type, ValidationError } from '../../core';
import { defineOptions } from '../flows';
import { AGGREGATES, COLUMN_TYPES, FILTER_OPERATORS, ORDER_DIRECTIONS, operatorsFor } from '../tables';
import { tablesDeps } from './deps';
import { OneOf, TableId } from './inputs';

/** Tables per page of the `tables` list (decisions.md: page size 100). */
export const TABLES_PAGE_SIZE = 100;

const NoParams = Type.Object({}, { additionalProperties: false });

/** The list's own cursor: an offset into the tenant's tables matching the search, opaque to clients. */
const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeCursor(cursor: string): number | null {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? Number(match[1]) : null;
}

const list = (items: ReadonlyArray<{ value: string; label: string }>) => () => ({ options: items.map(({ label, value }) => ({ label, value })) });

const tables = defineOptions({
  deps: tablesDeps,
  kind: 'tables',
  description: 'The workspace’s tables by name (value: the table’s uuid); searched by name and paged in the database',
  params: NoParams,
  searchable: true,
  async load({ search, cursor, deps }) {
    const offset = cursor === null ? 0 : decodeCursor(cursor);
    // A searchable list's cursor reaches only its provider: a ValidationError from here is the options route's 422.
    if (offset === null) throw new ValidationError({ cursor: ['is not a cursor this list returned'] });
    const { items, total } = await deps.records.listTables({ search: search?.trim() || undefined, limit: TABLES_PAGE_SIZE, offset });
    const end = offset + items.length;
    return { options: items.map((table) => ({ label: table.name, value: table.uuid })), nextCursor: end < total ? encodeCursor(end) : null };
  },
});

const columns = defineOptions({
  deps: tablesDeps,
  kind: 'columns',
  description:
    'The columns of `params.table_id` in display order (label: the name, value: the uuid). A table that does not exist (deleted, say) answers the ' +
    '`unavailable` state: the user picks another table.',
  params: Type.Object({ table_id: TableId }, { additionalProperties: false }),
  async load({ params, deps }) {
    const table = await deps.records.outline(params.table_id);
    if (!table) return { state: 'unavailable', message: `No table ${params.table_id} in this workspace: choose another table` };
    return { options: table.columns.map((column) => ({ label: column.name, value: column.uuid })) };
  },
});

/**
 * The option lists of the `tables` app. `operators`, `aggregates` and `order_directions`
 * are the lists the tables plugin validates against, so a choice here is always accepted.
 */
export const tableOptions = [
  tables,
  columns,
  defineOptions({ kind: 'operators', description: 'Every filter operator, for any column type', params: NoParams, load: list(FILTER_OPERATORS) }),
  defineOptions({
    kind: 'operators_for_type',
    description: 'The filter operators that apply to a column type (`params.type`)',
    params: Type.Object({ type: OneOf(COLUMN_TYPES, `A column type: ${COLUMN_TYPES.join(', ')}`) }, { additionalProperties: false }),
    load: ({ params }) => list(operatorsFor(params.type))(),
  }),
  defineOptions({ kind: 'aggregates', description: 'What `aggregate` computes', params: NoParams, load: list(AGGREGATES) }),
  defineOptions({ kind: 'order_directions', description: 'Directions of a sort key', params: NoParams, load: list(ORDER_DIRECTIONS) }),
];
