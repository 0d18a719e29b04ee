import { Type, ValidationError } from '../../core';
import { Options, defineAction, flowCause } from '../flows';
import { AGGREGATES, TableNotFoundError, type RecordJson } from '../tables';
import { tablesDeps } from './deps';
import { ColumnOf, ColumnRef, Filters, OneOf, RecordId, Sort, TableId, Values } from './inputs';

export const RECORD_SAMPLE: RecordJson = {
  uuid: '0190d5c2-0000-7000-8000-0000000000b1',
  table_uuid: '0190d5c2-0000-7000-8000-0000000000a1',
  values: { name: 'Ada Lovelace', email: 'ada@example.com', visits: 3 },
  created_at: '2025-01-01T09:00:00.000Z',
  updated_at: '2025-01-01T09:00:00.000Z',
};

export const FIND_LIMIT_DEFAULT = 100;
export const FIND_LIMIT_MAX = 1000;

/**
 * Runs a call to the records service, turning its refusals into step errors the user
 * can read: an unknown table by its id, invalid values or filters with every path.
 */
async function asStep<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TableNotFoundError) throw new Error(`No table ${error.tableUuid} in this workspace`);
    if (error instanceof ValidationError) {
      throw new Error(
        Object.entries(error.errors)
          .map(([path, messages]) => `${path} ${messages.join(', ')}`)
          .join('; ') || error.message,
      );
    }
    throw error;
  }
}

const WRITES =
  'The write is part of the execution’s step: it commits with the step, and a failure (a value of the wrong type, an unknown column) writes nothing.';

const insertRecord = defineAction({
  deps: tablesDeps,
  key: 'insert_record',
  name: 'Insert record',
  description: `Adds a record to a table, with \`values\` by column name or uuid (columns left out stay empty). The output is the record, values by column name. ${WRITES}`,
  input: Type.Object({ table_id: TableId, values: Values }, { additionalProperties: false }),
  outputSample: RECORD_SAMPLE,
  run: ({ input, step, deps }) => asStep(() => deps.records.insert(input.table_id, input.values, { cause: flowCause(step.flowUuid) })),
});

const updateRecord = defineAction({
  deps: tablesDeps,
  key: 'update_record',
  name: 'Update record',
  description: `Changes the given \`values\` of a record and keeps its others. The output is the record afterwards; an unknown record fails the step. ${WRITES}`,
  input: Type.Object({ table_id: TableId, record_id: RecordId, values: Values }, { additionalProperties: false }),
  outputSample: { ...RECORD_SAMPLE, values: { ...RECORD_SAMPLE.values, visits: 4 }, updated_at: '2025-01-02T09:00:00.000Z' },
  async run({ input, step, deps }) {
    const record = await asStep(() => deps.records.update(input.table_id, input.record_id, input.values, { cause: flowCause(step.flowUuid) }));
    if (!record) throw new Error(`No record ${input.record_id} in table ${input.table_id}`);
    return record;
  },
});

const deleteRecord = defineAction({
  deps: tablesDeps,
  key: 'delete_record',
  name: 'Delete record',
  description: `Deletes a record. The output is \`{deleted}\`: false when the table has no such record (already deleted, say), which is not an error. An unknown table fails the step. ${WRITES}`,
  input: Type.Object({ table_id: TableId, record_id: RecordId }, { additionalProperties: false }),
  outputSample: { deleted: true },
  run: async ({ input, deps }) => ({ deleted: await asStep(() => deps.records.delete(input.table_id, input.record_id)) }),
});

const findRecords = defineAction({
  deps: tablesDeps,
  key: 'find_records',
  name: 'Find records',
  description:
    `Reads the records that meet every filter, sorted, at most \`limit\` (${FIND_LIMIT_DEFAULT} by default). The output is \`{records, count}\`: ` +
    '`count` is how many records match, which may be more than the records returned. Reads only, so the engine may run it with the pure steps around it.',
  input: Type.Object(
    {
      table_id: TableId,
      filters: Type.Optional(Filters),
      sort: Type.Optional(Sort),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FIND_LIMIT_MAX, description: `Most records returned, ${FIND_LIMIT_DEFAULT} by default` })),
    },
    { additionalProperties: false },
  ),
  outputSample: { records: [RECORD_SAMPLE], count: 1 },
  pure: true,
  async run({ input, deps }) {
    const { items, total } = await asStep(() =>
      deps.records.find(input.table_id, { filters: input.filters, sort: input.sort, limit: input.limit ?? FIND_LIMIT_DEFAULT }),
    );
    return { records: items, count: total };
  },
});

const aggregate = defineAction({
  deps: tablesDeps,
  key: 'aggregate',
  name: 'Aggregate',
  description:
    'Counts the records that meet every filter, or sums, averages, or takes the minimum or maximum of a column over them (see the `aggregates` option list ' +
    'for which column types each takes). `count` with a column counts its non-empty cells. Empty cells are left out of sum, avg, min and max, as in SQL ' +
    '(the sum of none is 0, the others null). The output is `{value}`, or with `group_by` `{groups: [{key, value}]}`: one group per distinct value of ' +
    'that column, ordered by it, empty cells last, at most 1000. Reads only, so the engine may run it with the pure steps around it.',
  input: Type.Object(
    {
      table_id: TableId,
      aggregate: Options(
        'aggregates',
        {},
        OneOf(
          AGGREGATES.map((candidate) => candidate.value),
          '`count`, `sum`, `avg`, `min` or `max`',
        ),
      ),
      column: Type.Optional(ColumnOf(ColumnRef('The column to aggregate, by uuid or name; required but for `count`, which without it counts records'))),
      group_by: Type.Optional(ColumnOf(ColumnRef('A column, by uuid or name, whose distinct values group the records'))),
      filters: Type.Optional(Filters),
    },
    {
      additionalProperties: false,
      // Only `count` has a meaning without a column: say so while the step is built, not when it runs.
      if: { properties: { aggregate: { not: { const: 'count' } } }, required: ['aggregate'] },
      then: { required: ['column'] },
    },
  ),
  outputSample: { value: 42 },
  pure: true,
  run: ({ input, deps }) =>
    asStep(() => deps.records.aggregate(input.table_id, { aggregate: input.aggregate, column: input.column, groupBy: input.group_by, filters: input.filters })),
});

export const recordActions = [insertRecord, updateRecord, deleteRecord, findRecords, aggregate];
