import { Type, ValidationError, type BusMessage, type FieldErrors } from '../../core';
import { defineTrigger } from '../flows';
import { TABLE_TOPICS, type ColumnJson, type RecordEvent, type RecordUpdatedEvent, type TableOutline, type TableRecords } from '../tables';
import { tablesDeps } from './deps';
import { ColumnOf, ColumnRef, TableId } from './inputs';
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

/**
 * The outline of an update's table, read once per event however many flows watch columns
 * of it (the message is the same object for every flow it is matched against).
 */
const outlines = new WeakMap<BusMessage<unknown>, Promise<TableOutline | null>>();
function outlineOf(records: TableRecords, message: BusMessage<RecordUpdatedEvent>): Promise<TableOutline | null> {
  let outline = outlines.get(message);
  if (!outline) outlines.set(message, (outline = records.outline(message.payload.table_uuid)));
  return outline;
}

/**
 * Whether the update changed a column of `watched` (uuids or names; every change when
 * absent). The event names columns; the table's outline maps a uuid to its name.
 */
async function changedWatched(records: TableRecords, watched: string[] | undefined, message: BusMessage<RecordUpdatedEvent>): Promise<boolean> {
  if (!watched) return true;
  const table = await outlineOf(records, message);
  if (!table) return false;
  const changed = new Set(message.payload.changed.map((name) => name.toLowerCase()));
  return watched.some((reference) => {
    const column = columnNamed(table.columns, reference);
    return column !== undefined && changed.has(column.name.toLowerCase());
  });
}

const LOOPS =
  'A flow is not started by a record its own `insert_record` or `update_record` step wrote, so "when a record is added, add one" does not loop. ' +
  'Two flows that keep writing each other’s table still would: each turn is an execution in their history; undeploy one.';

const recordCreated = defineTrigger({
  deps: tablesDeps,
  key: 'record_created',
  name: 'Record created',
  description:
    'Starts the flow for each record added to the table through the records API (a bulk create too) or by a flow; the rows an import adds do not start it. ' +
    'The output is the event: ' +
    `\`{table_uuid, table_name, record}\`, \`record\` with its values by column name. Deploying checks that the table exists (422 at \`config.table_id\`). ${LOOPS}`,
  input: Type.Object({ table_id: TableId }, { additionalProperties: false }),
  outputSample: { table_uuid: RECORD_SAMPLE.table_uuid, table_name: 'Customers', record: RECORD_SAMPLE } satisfies RecordEvent,
  event: {
    topic: TABLE_TOPICS.recordCreated,
    formerly: ['app-tables.fire-record-created'],
    matches: (config, message: BusMessage<RecordEvent>) => config.table_id === message.payload.table_uuid,
  },
  onDeploy: ({ input, deps }) => checkConfig(deps.records, input),
});

const recordUpdated = defineTrigger({
  deps: tablesDeps,
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
        ColumnOf(
          Type.Array(ColumnRef('A column, by uuid or name'), {
            minItems: 1,
            maxItems: 100,
            uniqueItems: true,
            description: 'Only when one of these columns changed; on every change when absent',
          }),
        ),
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
  event: {
    topic: TABLE_TOPICS.recordUpdated,
    formerly: ['app-tables.fire-record-updated'],
    matches: async (config, message: BusMessage<RecordUpdatedEvent>, { deps }) =>
      config.table_id === message.payload.table_uuid && (await changedWatched(deps.records, config.columns, message)),
  },
  onDeploy: ({ input, deps }) => checkConfig(deps.records, input),
});

export const recordTriggers = [recordCreated, recordUpdated];
