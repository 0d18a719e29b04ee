import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, ValidationError, defineRoute, deleteRoute, type AnyRoute, type BusService } from '../../../core';
import type { DataTable, TableColumn } from '../entities';
import { columnJson } from '../model/record-view';
import { addColumns, checkColumnSpecs, columnsOf } from './column-schema';
import { findTable } from './find-table';
import { markIndexStale } from './index-staleness';
import { FieldCreateBody, FieldEnvelope, FieldParams, FieldPatchBody, FieldsEnvelope, TableParams } from './table-schemas';

const tags = ['tables'];

/** The table, locked for a column change, with the column addressed by `fieldUuid` (404 when it has none such). */
async function lockedColumn(em: EntityManager, tableUuid: string, fieldUuid: string): Promise<{ table: DataTable; columns: TableColumn[]; column: TableColumn }> {
  const table = await findTable(em, tableUuid, { lock: true });
  const columns = await columnsOf(em, table.uuid);
  const column = columns.find((candidate) => candidate.uuid === fieldUuid);
  if (!column) throw new NotFoundError('Field not found');
  return { table, columns, column };
}

/** The spec's `/api/v1/data/{uuid}/fields`, plus renaming and deleting a column. */
export const fieldRoutes = (bus: BusService): AnyRoute[] => [addField, listFields, renameField(bus), deleteField(bus)];

const addField = defineRoute({
  method: 'POST',
  path: '/api/v1/data/:uuid/fields',
  summary: 'Add a column to a table',
  description:
    'The column goes at the end. Existing records are not rewritten: they read an empty value (null) for it until one is written. ' +
    'A type outside text, number, date, boolean, json, url, or a name the table already has (case-insensitive), is refused with 422.',
  tags,
  params: TableParams,
  body: FieldCreateBody,
  status: 201,
  errors: [404],
  response: FieldEnvelope,
  handler: async ({ params, body, em }) => {
    const table = await findTable(em, params.uuid, { lock: true });
    const [column] = await addColumns(em, table, [body], '');
    return { success: true, message: 'Field added', data: { data_uuid: table.uuid, field: columnJson(column) } };
  },
});

const listFields = defineRoute({
  method: 'GET',
  path: '/api/v1/data/:uuid/fields',
  summary: 'List a table’s columns',
  description: 'In display order. An unknown table answers 404 `{success: false, message: "Data not found", data: [...]}`.',
  tags,
  params: TableParams,
  errors: [404],
  response: FieldsEnvelope,
  handler: async ({ params, em }) => {
    const table = await findTable(em, params.uuid);
    const columns = await columnsOf(em, table.uuid);
    return { success: true, message: 'Fields', data: { data_uuid: table.uuid, fields: columns.map(columnJson) } };
  },
});

const renameField = (bus: BusService) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/data/:uuid/fields/:field',
    summary: 'Rename a column',
    description:
      'Values are kept (they are stored under the column, not its name); filters and record views use the new name at once. ' +
      'The type cannot change. The search index turns `stale` and a sync is queued, since search documents show column names.',
    tags,
    params: FieldParams,
    body: FieldPatchBody,
    errors: [404],
    response: FieldEnvelope,
    handler: async ({ params, body, em }) => {
      const { table, columns, column } = await lockedColumn(em, params.uuid, params.field);
      const name = body.name.trim();
      if (name !== column.name) {
        const others = columns.filter((other) => other !== column);
        const problems = checkColumnSpecs([{ name, data_type: column.dataType }], others, '');
        if (Object.keys(problems).length > 0) throw new ValidationError(problems);
        column.name = name;
        await markIndexStale(em, bus, table);
      }
      return { success: true, message: 'Field renamed', data: { data_uuid: table.uuid, field: columnJson(column) } };
    },
  });

const deleteField = (bus: BusService) =>
  deleteRoute({
    path: '/api/v1/data/:uuid/fields/:field',
    summary: 'Delete a column',
    description:
      'Records no longer show its values, and filters can no longer name it (a new column never reuses its storage). ' +
      'The search index turns `stale` and a sync is queued to drop its values from search.',
    tags,
    params: FieldParams,
    message: 'Field deleted',
    remove: async ({ params, em }) => {
      const { table, column } = await lockedColumn(em, params.uuid, params.field);
      em.remove(column);
      await markIndexStale(em, bus, table);
    },
  });
