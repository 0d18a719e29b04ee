import { Component, DataEnvelope, PageQuery, ReadOnly, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid } from '../../../core';
import { OPERATOR_VALUES } from '../model/operators';
import { BULK_LIMIT } from '../model/table-errors';

/** Most filters one record list takes. */
export const FILTERS_MAX = 20;

export const RecordSchema = Component(
  'DataTableRecord',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      table_uuid: ReadOnly(Uuid()),
      values: Type.Record(Type.String(), Type.Unknown(), {
        description: 'Every column of the table by name, in column order; an empty cell is null',
      }),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A record (row) of a table' },
  ),
);

const ValueItem = Type.Object(
  {
    column_id: Type.Optional(Type.String({ description: 'The column’s uuid (give this or column_name)' })),
    column_name: Type.Optional(Type.String({ description: 'The column’s name, case-insensitive (give this or column_id)' })),
    value: Type.Unknown({ description: 'The value, of the column’s type; null empties the cell' }),
  },
  { additionalProperties: false },
);

const VALUES =
  'The values, addressed by column id or column name, in either of two forms: an object keyed by column uuid or column name ' +
  '(a uuid is tried first, then the name, case-insensitively), or a list `[{column_id | column_name, value}]`. ' +
  'Each value must fit its column’s type: text a string; number a finite JSON number; date an ISO 8601 date (`2025-03-01`) or date-time ' +
  '(`2025-03-01T09:30:00+01:00`, stored in UTC; a day that does not exist is refused); boolean true or false; url an http(s) URL; json any JSON value. ' +
  'null empties a cell. Problems are reported at `values.<column name>` (an unknown column at the key or list item that names it).';

export const ValuesSchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Array(ValueItem, { maxItems: 1000 })], { description: VALUES });

const RecordValuesBody = Type.Object({ values: ValuesSchema }, { additionalProperties: false });

export const RecordCreateBody = Type.Object(
  {
    values: Type.Optional(ValuesSchema),
    records: Type.Optional(
      Type.Array(RecordValuesBody, {
        minItems: 1,
        maxItems: BULK_LIMIT,
        description: `Many records at once (1 to ${BULK_LIMIT}), all or none: one bad value anywhere refuses the whole request (422 at \`records.<i>.values.<column name>\`)`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Either `values` (one record) or `records` (many)',
    examples: [{ values: { name: 'Widget', price: 9.5 } }, { records: [{ values: { name: 'Widget', price: 9.5 } }, { values: [{ column_name: 'name', value: 'Gadget' }] }] }],
  },
);

/** One record's new values; what was read may be sent back (read-only members are ignored). */
export const RecordUpdateBody = Type.Object({ ...RecordSchema.properties, values: ValuesSchema }, { additionalProperties: false, examples: [{ values: { price: 12.5 } }] });

export const RecordBulkUpdateBody = Type.Object(
  {
    records: Type.Array(
      Type.Object({ ...RecordSchema.properties, uuid: ResourceId('tables.record', 'The record to change'), values: ValuesSchema }, { additionalProperties: false }),
      { minItems: 1, maxItems: BULK_LIMIT, description: `1 to ${BULK_LIMIT} records, each changed as by \`PUT .../records/{record}\`` },
    ),
  },
  { additionalProperties: false, examples: [{ records: [{ uuid: '01960000-0000-7000-8000-000000000001', values: { price: 12.5 } }] }] },
);

export const RecordBulkDeleteBody = Type.Object(
  { uuids: Type.Array(ResourceId('tables.record'), { minItems: 1, maxItems: BULK_LIMIT, description: `The records to delete, 1 to ${BULK_LIMIT}` }) },
  { additionalProperties: false, examples: [{ uuids: ['01960000-0000-7000-8000-000000000001'] }] },
);

export const BulkRecords = Type.Object({ items: Type.Array(RecordSchema), count: Type.Integer({ minimum: 0 }) });
export const RecordCreated = DataEnvelope(Type.Union([RecordSchema, BulkRecords], { description: 'The record for `values`; `{items, count}` for `records`' }));
export const BulkDeleted = SuccessEnvelope(Type.Object({ deleted: Type.Integer({ minimum: 0, description: 'How many records were deleted' }) }));

const FilterQuery = Type.Object(
  {
    column: Type.Optional(Type.String({ description: 'Column uuid or name' })),
    operator: Type.Optional(Type.String({ description: `One of ${OPERATOR_VALUES.join(', ')}` })),
    value: Type.Optional(Type.String({ description: 'Read as the column’s type; for `in`, a comma-separated list; none for is_empty and is_not_empty' })),
  },
  { additionalProperties: false },
);

const FILTERS =
  `Filters, all of which a record must match (up to ${FILTERS_MAX}): \`filter[0][column]=price&filter[0][operator]=gt&filter[0][value]=10&filter[1][column]=name&filter[1][operator]=contains&filter[1][value]=pro\`; ` +
  'one filter may also be given as `filter[column]=...&filter[operator]=...&filter[value]=...`. The column is named by uuid or name. ' +
  'Operators, by column type: `eq`, `neq` (text, number, date, boolean, url); `gt`, `gte`, `lt`, `lte` (number, date, text, url); ' +
  '`contains`, `not_contains` (text, url, json); `starts_with`, `ends_with` (text, url); `in` (text, number, date, url: a comma-separated list); ' +
  '`is_empty`, `is_not_empty` (every type, no value). Numbers compare as numbers, dates as instants (a date alone is midnight UTC), ' +
  'text and URLs case-insensitively. A value that does not fit the column’s type is a 422 at `filter.<i>.value`, an operator the column’s type does not take at `filter.<i>.operator`.';

export const RecordListQuery = PageQuery({
  filter: Type.Optional(Type.Union([Type.Array(FilterQuery, { maxItems: FILTERS_MAX }), FilterQuery], { description: FILTERS })),
  sort: Type.Optional(Type.String({ description: 'Column (uuid or name) to sort by: numbers and dates by value, text case-insensitively, empty cells last. Default: creation order' })),
  direction: Type.Optional(Type.String({ enum: ['asc', 'desc'], description: 'Direction of `sort` (default asc)' })),
});

export const RecordsParams = Type.Object({ uuid: ResourceId('tables.table', 'The table’s uuid') });
export const RecordParams = Type.Object({
  uuid: ResourceId('tables.table', 'The table’s uuid'),
  record: ResourceId('tables.record', 'The record’s uuid'),
});
