import { Type, ValidationError, type FieldErrors } from '../../core';
import { defineTrigger } from '../flows';
import type { ColumnJson, RecordEvent, RecordUpdatedEvent, TableRecords } from '../tables';
import { ColumnRef, TableId } from './inputs';
import { RECORD_SAMPLE } from './record-actions';

/** The column a config names by uuid or by name (names are unique in a table whatever their case). */
export const columnNamed = (columns: readonly ColumnJson[], reference: string): ColumnJson | undefined =>
  columns.find((column) => column.uuid === reference) ?? columns.find((column) => column.name.toLowerCase() === reference.toLowerCase());

/** Deploying checks what the config names, so a flow never waits for a table or column that does not exist. */
async function checkConfig(records: TableRecords, config: { table_id: string; columns?: string[] }): Promise<void> {
  const table = await records.outline(config.table_id);
  if (!table) throw ValidationError.field('config.table_id', 'is not a table of this workspace');
  const errors: FieldErrors = {};
  (config.columns ?? []).forEach((reference, index) => {
    if (!columnNamed(table.columns, reference)) errors[`config.columns.${index}`] = [`is not a column of the table "${table.name}"`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

const LOOPS =
  'A flow is not started by a record its own `insert_record` or `update_record` step wrote, so "when a record is added, add one" does not loop. ' +
  'Two flows that keep writing each other’s table still would: each turn is an execution in their history; undeploy one.';

function recordCreated(records: () => TableRecords) {
  return defineTrigger({
    key: 'record_created',
    name: 'Record created',
    description:
      'Starts the flow for each record added to the table through the records API (a bulk create too) or by a flow; the rows an import adds do not start it. ' +
      'The output is the event: ' +
      `\`{table_uuid, table_name, record}\`, \`record\` with its values by column name. Deploying checks that the table exists (422 at \`config.table_id\`). ${LOOPS}`,
    input: Type.Object({ table_id: TableId }, { additionalProperties: false }),
    outputSample: { table_uuid: RECORD_SAMPLE.table_uuid, table_name: 'Customers', record: RECORD_SAMPLE } satisfies RecordEvent,
    onDeploy: ({ input }) => checkConfig(records(), input),
  });
}

function recordUpdated(records: () => TableRecords) {
  return defineTrigger({
    key: 'record_updated',
    name: 'Record updated',
    description:
      'Starts the flow when a record of the table changes (a write that leaves every value as it was is no change); with `columns`, only when one of ' +
      'those columns changed. The output is the event: ' +
      '`{table_uuid, table_name, record, changed}`, `record` as it is afterwards, `changed` the names of the columns that changed. Deploying checks that ' +
      `the table and the columns exist (422 at \`config.table_id\` or \`config.columns.<i>\`). ${LOOPS}`,
    input: Type.Object(
      {
        table_id: TableId,
        columns: Type.Optional(
          Type.Array(ColumnRef('A column, by uuid or name (see the `columns` option list)'), {
            minItems: 1,
            maxItems: 100,
            uniqueItems: true,
            description: 'Only when one of these columns changed; on every change when absent',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    outputSample: {
      table_uuid: RECORD_SAMPLE.table_uuid,
      table_name: 'Customers',
      record: { ...RECORD_SAMPLE, values: { ...RECORD_SAMPLE.values, visits: 4 }, updated_at: '2025-01-02T09:00:00.000Z' },
      changed: ['visits'],
    } satisfies RecordUpdatedEvent,
    onDeploy: ({ input }) => checkConfig(records(), input),
  });
}

export const recordTriggers = (records: () => TableRecords) => [recordCreated(records), recordUpdated(records)];
