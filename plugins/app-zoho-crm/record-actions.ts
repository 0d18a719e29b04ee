import { Type, ValidationError } from '../../core';
import { defineAction } from '../flows';
import { zohoAuth, zohoDeps } from './auth';
import { escapeCriteriaValue, MAX_PER_PAGE, zohoClient, type WriteResult } from './zoho-api';
import { FieldOf, Fields, ModuleName, OneOf, RecordIdOf } from './zoho-inputs';

/**
 * The record actions. A write answers what Zoho stored: the record's id, the fields sent,
 * and the times and users Zoho reported (`Created_Time`, `Modified_By`, ...); an upsert
 * also says whether it inserted or updated, and which field matched.
 */

const RECORD_SAMPLE = {
  id: '4876876000000624001',
  Last_Name: 'Smith',
  Email: 'jane.smith@example.com',
  Created_Time: '2024-05-02T10:15:00+05:30',
  Modified_Time: '2024-05-02T10:15:00+05:30',
  Created_By: { name: 'Patricia Boyle', id: '4876876000000327001' },
  Modified_By: { name: 'Patricia Boyle', id: '4876876000000327001' },
};

/** The output of a write: `id` first, then the fields sent, then what Zoho reported of the write. */
function written(result: WriteResult, fields: Record<string, unknown>): Record<string, unknown> {
  const id = String(result.details.id);
  const output: Record<string, unknown> = { id, ...fields, ...result.details };
  output.id = id;
  if (result.action !== undefined) output.action = result.action;
  if (result.duplicate_field !== undefined) output.duplicate_field = result.duplicate_field;
  return output;
}

export const createRecord = defineAction({
  auth: zohoAuth,
  deps: zohoDeps,
  key: 'create_record',
  name: 'Create record',
  description: 'Adds a record to a Zoho CRM module',
  input: Type.Object({ module: ModuleName, fields: Fields('The new record’s fields; the module’s mandatory fields are required (Last_Name for Leads and Contacts).') }, { additionalProperties: false }),
  outputSample: RECORD_SAMPLE,
  async run({ http, deps, input }) {
    return written(await zohoClient(http, deps.config).create(input.module, input.fields), input.fields);
  },
});

export const updateRecord = defineAction({
  auth: zohoAuth,
  deps: zohoDeps,
  key: 'update_record',
  name: 'Update record',
  description: 'Changes fields of one record of a Zoho CRM module; fields not given keep their values',
  input: Type.Object(
    {
      module: ModuleName,
      record_id: RecordIdOf('The record, usually a reference such as `{{step1.id}}`'),
      fields: Fields('The fields to change.'),
    },
    { additionalProperties: false },
  ),
  outputSample: RECORD_SAMPLE,
  async run({ http, deps, input }) {
    return written(await zohoClient(http, deps.config).update(input.module, input.record_id, input.fields), input.fields);
  },
});

export const upsertRecord = defineAction({
  auth: zohoAuth,
  deps: zohoDeps,
  key: 'upsert_record',
  name: 'Create or update record',
  description: 'Updates the record whose match field has the given value, or creates one when none has (Zoho’s upsert with duplicate_check_fields)',
  input: Type.Object(
    {
      module: ModuleName,
      match_field: FieldOf('The field that identifies the record, such as Email; `fields` must give its value. A unique field is best: Zoho updates one record that matches'),
      fields: Fields('The record’s fields, the match field among them.'),
    },
    { additionalProperties: false },
  ),
  outputSample: { ...RECORD_SAMPLE, action: 'update', duplicate_field: 'Email' },
  async run({ http, deps, input }) {
    const value = input.fields[input.match_field];
    if (value === undefined || value === null || value === '') {
      throw ValidationError.field('config.fields', `must give a value for the match field "${input.match_field}"`);
    }
    return written(await zohoClient(http, deps.config).upsert(input.module, input.fields, [input.match_field]), input.fields);
  },
});

const OPERATORS = ['equals', 'starts_with'] as const;

export const findRecords = defineAction({
  auth: zohoAuth,
  deps: zohoDeps,
  key: 'find_records',
  name: 'Find records',
  description: 'Finds the records of a Zoho CRM module whose field equals (or starts with) a value, through Zoho’s search',
  input: Type.Object(
    {
      module: ModuleName,
      field: FieldOf('The field compared, by API name (Email, Phone, Last_Name, ...)'),
      operator: Type.Optional(OneOf(OPERATORS, '`equals` (the default) or `starts_with`. Zoho compares text case-insensitively')),
      value: Type.String({ minLength: 1, maxLength: 255, description: 'The value looked for, often a reference such as `{{trigger.email}}`' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 20, description: 'Most records returned (1 to 200, default 20)' })),
    },
    { additionalProperties: false },
  ),
  outputSample: { records: [RECORD_SAMPLE], count: 1, more_records: false },
  async run({ http, deps, input }) {
    const limit = input.limit ?? 20;
    const criteria = `(${input.field}:${input.operator ?? 'equals'}:${escapeCriteriaValue(input.value)})`;
    const page = await zohoClient(http, deps.config).search(input.module, { criteria }, 1, limit);
    const records = page.records.slice(0, limit);
    return { records, count: records.length, more_records: page.info.more_records === true || page.records.length > limit };
  },
});

export const recordActions = [createRecord, updateRecord, upsertRecord, findRecords];
