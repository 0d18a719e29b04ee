import type { BusMessage, BusService } from '../../core';
import type { FlowTriggers, LiveTrigger } from '../flows';
import { TABLE_TOPICS, type RecordEvent, type RecordUpdatedEvent, type TableOutline, type TableRecords } from '../tables';
import { causeOf } from './cause';
import { columnNamed } from './record-triggers';

/** A live trigger of the event's table, and not a flow reacting to its own write. */
const concerns = (trigger: LiveTrigger, message: BusMessage<RecordEvent>) =>
  trigger.config.table_id === message.payload.table_uuid && message.headers['caused-by'] !== causeOf(trigger.flowUuid);

/**
 * Whether a `record_updated` trigger's `columns` (uuids or names) include a column the
 * update changed. The event names columns; the table's outline maps a uuid to its name.
 */
async function changedWatched(outline: () => Promise<TableOutline | null>, trigger: LiveTrigger, event: RecordUpdatedEvent): Promise<boolean> {
  const watched = trigger.config.columns as string[] | undefined;
  if (!watched) return true;
  const table = await outline();
  if (!table) return false;
  const changed = new Set(event.changed.map((name) => name.toLowerCase()));
  return watched.some((reference) => {
    const column = columnNamed(table.columns, reference);
    return column !== undefined && changed.has(column.name.toLowerCase());
  });
}

/**
 * Starts the live `record_created` and `record_updated` flows a record event concerns,
 * in the transaction that records the event as handled: an execution is written once
 * per event and trigger, whatever retries the bus makes.
 */
export function consumeRecordEvents(bus: BusService, triggers: FlowTriggers, records: TableRecords): void {
  bus.consume<RecordEvent>({ name: 'fire-record-created', topics: [TABLE_TOPICS.recordCreated], concurrency: 4 }, async (message) => {
    for (const trigger of await triggers.live('tables', 'record_created')) {
      if (concerns(trigger, message)) await triggers.fire(trigger, message.payload);
    }
  });
  bus.consume<RecordUpdatedEvent>({ name: 'fire-record-updated', topics: [TABLE_TOPICS.recordUpdated], concurrency: 4 }, async (message) => {
    // Read once per event, and only when a trigger watches columns.
    let table: Promise<TableOutline | null> | undefined;
    const outline = () => (table ??= records.outline(message.payload.table_uuid));
    for (const trigger of await triggers.live('tables', 'record_updated')) {
      if (concerns(trigger, message) && (await changedWatched(outline, trigger, message.payload))) await triggers.fire(trigger, message.payload);
    }
  });
}
