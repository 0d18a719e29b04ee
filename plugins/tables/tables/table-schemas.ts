import { Component, ReadOnly, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid, type Static } from '../../../core';
import { COLUMN_TYPES } from '../model/column-types';
import { COLUMN_NAME_MAX } from './column-schema';

const DataType = Type.String({ enum: [...COLUMN_TYPES], description: `The column's type: ${COLUMN_TYPES.join(', ')}. Every value written is checked against it.` });

const SEARCH_LANGUAGE =
  'The PostgreSQL text search configuration of the table’s search index (`english`, `german`, `french`, `spanish`, `simple`, ...; ' +
  'any name in the database’s `pg_ts_config`): it decides stemming and stop words. Default: the operator’s `TABLES_SEARCH_LANGUAGE` (`english` unless set).';

/** A column as every route shows it (the spec's table column). */
export const TableColumnSchema = Component(
  'DataTableColumn',
  Type.Object(
    {
      uuid: ReadOnly(Uuid({ description: 'The column’s id: `column_id` when a record addresses its values by id' })),
      name: Type.String({ description: `Unique within the table (case-insensitive), 1 to ${COLUMN_NAME_MAX} characters: \`column_name\` when a record addresses its values by name` }),
      data_type: DataType,
    },
    { description: 'A typed column of a table' },
  ),
);

export const TableSchema = Component(
  'DataTable',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.String({ maxLength: 2000 }),
      search_language: Type.String({ description: SEARCH_LANGUAGE }),
      columns: ReadOnly(Type.Array(TableColumnSchema, { description: 'In display order. Changed through `/api/v1/data/{uuid}/fields`.' })),
      record_count: ReadOnly(Type.Integer({ minimum: 0 })),
      index: ReadOnly(
        Type.Object(
          {
            status: Type.String({
              enum: ['current', 'stale', 'syncing'],
              description:
                '`current`: search sees every record as it is; `stale`: a bulk change (an import, a language change, a renamed or deleted column) ' +
                'is not in the index yet, run `POST /api/v1/data/{uuid}/sync`; `syncing`: a sync is running',
            }),
            indexed_at: Type.Union([Timestamp(), Type.Null()], { description: 'When a sync last rebuilt the index; null before the first' }),
          },
          { description: 'The state of the table’s search index' },
        ),
      ),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A table: a typed dataset that agents search (knowledge base) or look rows up in' },
  ),
);
export type TableJson = Static<typeof TableSchema>;

const ColumnSpec = Type.Object(
  {
    name: Type.String({ description: `1 to ${COLUMN_NAME_MAX} characters, unique within the table (case-insensitive)` }),
    data_type: DataType,
  },
  { additionalProperties: false },
);

export const TableCreateBody = Type.Object(
  {
    name: TableSchema.properties.name,
    description: Type.Optional(TableSchema.properties.description),
    search_language: Type.Optional(Type.String({ description: `${SEARCH_LANGUAGE} Default \`english\`.` })),
    columns: Type.Array(ColumnSpec, { maxItems: 500, description: 'The typed column schema, in display order; may be empty (add columns later)' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Products',
        description: 'The catalogue the sales agent answers from',
        columns: [
          { name: 'name', data_type: 'text' },
          { name: 'price', data_type: 'number' },
          { name: 'released', data_type: 'date' },
          { name: 'in_stock', data_type: 'boolean' },
          { name: 'page', data_type: 'url' },
        ],
      },
    ],
  },
);

/** A partial update; what was read may be sent back (read-only members, columns included, are ignored). */
export const TablePatchBody = Type.Object(
  {
    ...TableSchema.properties,
    name: Type.Optional(TableSchema.properties.name),
    description: Type.Optional(TableSchema.properties.description),
    search_language: Type.Optional(TableSchema.properties.search_language),
  },
  { additionalProperties: false, examples: [{ name: 'Products 2025', search_language: 'simple' }] },
);

export const TableListQuery = {
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Only tables whose name contains this (case-insensitive)' })),
};

export const TableParams = Type.Object({ uuid: ResourceId('tables.table', 'The table’s uuid') });
export const FieldParams = Type.Object({
  uuid: ResourceId('tables.table', 'The table’s uuid'),
  field: ResourceId('tables.column', 'The column’s uuid'),
});

export const FieldCreateBody = Type.Object(
  { name: ColumnSpec.properties.name, data_type: DataType },
  { additionalProperties: false, examples: [{ name: 'sku', data_type: 'text' }] },
);

export const FieldPatchBody = Type.Object(
  { name: ColumnSpec.properties.name },
  { additionalProperties: false, examples: [{ name: 'title' }] },
);

/** The spec's `POST /data/{uuid}/fields` answer (also a rename's). */
export const FieldEnvelope = SuccessEnvelope(Type.Object({ data_uuid: Uuid({ description: 'The table’s uuid' }), field: TableColumnSchema }));

/** The spec's `GET /data/{uuid}/fields` answer. */
export const FieldsEnvelope = SuccessEnvelope(Type.Object({ data_uuid: Uuid({ description: 'The table’s uuid' }), fields: Type.Array(TableColumnSchema) }));
