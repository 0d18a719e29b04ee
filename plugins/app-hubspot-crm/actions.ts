import { Type } from '../../core';
import { VendorError, defineAction } from '../flows';
import { hubspotAuth } from './auth';
import { HUBSPOT, SEARCH_PAGE_MAX, hubspotClient, recordJson, type HubSpotObject } from './client';
import { hubspotCrmDeps } from './deps';
import { Module, PropertyOf, PropertyValues, RecordIdOf, ReturnedProperties, asHubSpotValues } from './inputs';

export const RECORD_SAMPLE = {
  id: '512',
  email: 'ada@example.com',
  firstname: 'Ada',
  lastname: 'Lovelace',
  hs_object_id: '512',
  createdate: '2025-01-01T09:00:00.000Z',
  lastmodifieddate: '2025-01-01T09:00:00.000Z',
  createdAt: '2025-01-01T09:00:00.000Z',
  updatedAt: '2025-01-01T09:00:00.000Z',
  archived: false,
};

const OUTPUT =
  'The output is the record as HubSpot answered it: its properties by internal name, `id`, `createdAt`, `updatedAt` and `archived`.';

const createRecord = defineAction({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  key: 'create_record',
  name: 'Create record',
  description: `Creates a record of the object type \`module\` with the given property values. ${OUTPUT}`,
  input: Type.Object({ module: Module, properties: PropertyValues }, { additionalProperties: false }),
  outputSample: RECORD_SAMPLE,
  async run({ http, deps, input, idempotencyKey }) {
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    return recordJson(await client.create(input.module, asHubSpotValues(input.properties), idempotencyKey));
  },
});

const updateRecord = defineAction({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  key: 'update_record',
  name: 'Update record',
  description:
    'Changes the given property values of one record and keeps its others. The record is `record_id`, its HubSpot id, or with `id_property` the ' +
    `record whose value of that unique property (\`email\` for contacts, say) is \`record_id\`. A record HubSpot does not find fails the step. ${OUTPUT}`,
  input: Type.Object(
    {
      module: Module,
      record_id: RecordIdOf('The record: its id, or its value of `id_property`'),
      id_property: Type.Optional(PropertyOf('A property with unique values (`email`, or a custom unique property) that `record_id` is a value of')),
      properties: PropertyValues,
    },
    { additionalProperties: false },
  ),
  outputSample: { ...RECORD_SAMPLE, lastname: 'King', updatedAt: '2025-01-02T09:00:00.000Z' },
  async run({ http, deps, input }) {
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    return recordJson(await client.update(input.module, input.record_id, asHubSpotValues(input.properties), input.id_property));
  },
});

const upsertRecord = defineAction({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  key: 'upsert_record',
  name: 'Create or update record',
  description:
    'Updates the record whose unique property `id_property` has the value `id_value`, or creates one with that value when there is none ' +
    '(HubSpot’s batch upsert, with one record). `id_property` must hold unique values (`email` on contacts, or a custom property with unique values; ' +
    `HubSpot refuses others). ${OUTPUT} Plus \`created\`: true when the record is new.`,
  input: Type.Object(
    {
      module: Module,
      id_property: PropertyOf('The property with unique values the record is found by (`email` for contacts)'),
      id_value: Type.String({ minLength: 1, maxLength: 1000, description: 'The value of `id_property` that names the record' }),
      properties: PropertyValues,
    },
    { additionalProperties: false },
  ),
  outputSample: { ...RECORD_SAMPLE, created: true },
  async run({ http, deps, input, idempotencyKey }) {
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    const answer = await client.upsert(input.module, { idProperty: input.id_property, id: input.id_value, properties: asHubSpotValues(input.properties) }, idempotencyKey);
    const [record] = answer.results ?? [];
    // HubSpot answers a batch whose inputs all failed with a 207 and `errors`, not with an error status.
    if (!record) throw new VendorError(HUBSPOT, 207, `${HUBSPOT} did not upsert the record: ${answer.errors?.[0]?.message ?? 'it answered no result'}`);
    return { ...recordJson(record), created: record.new === true };
  },
});

export const FIND_LIMIT_DEFAULT = 10;
export const FIND_LIMIT_MAX = 1000;

const OPERATORS = ['EQ', 'NEQ', 'CONTAINS_TOKEN', 'GT', 'GTE', 'LT', 'LTE', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY'] as const;

const findRecords = defineAction({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  key: 'find_records',
  name: 'Find records',
  description:
    'Finds the records of `module` whose property `property` compares with `value` (equal by default), through HubSpot’s search, at most `limit` ' +
    `(${FIND_LIMIT_DEFAULT} by default), in the order of their ids. The output is \`{records, total}\`: \`total\` is how many records match, which may be more ` +
    'than those returned. HubSpot’s search sees a change a few seconds after it is made.',
  input: Type.Object(
    {
      module: Module,
      property: PropertyOf('The property compared'),
      operator: Type.Optional(
        Type.Unsafe<(typeof OPERATORS)[number]>({
          type: 'string',
          enum: [...OPERATORS],
          description: 'How the property compares with `value`: `EQ` (the default, case-insensitive for text), `NEQ`, `CONTAINS_TOKEN` (a word, `*` wildcards), ' +
            '`GT`, `GTE`, `LT`, `LTE`, or `HAS_PROPERTY`/`NOT_HAS_PROPERTY` (no value)',
        }),
      ),
      value: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()], { description: 'What the property is compared with' })),
      properties: Type.Optional(ReturnedProperties),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FIND_LIMIT_MAX, description: `Most records returned, ${FIND_LIMIT_DEFAULT} by default` })),
    },
    {
      additionalProperties: false,
      // Every operator but the two that test presence compares with something: say so while the step is built.
      if: { properties: { operator: { not: { enum: ['HAS_PROPERTY', 'NOT_HAS_PROPERTY'] } } } },
      then: { required: ['value'] },
    },
  ),
  outputSample: { records: [RECORD_SAMPLE], total: 1 },
  pure: true,
  async run({ http, deps, input }) {
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    const operator = input.operator ?? 'EQ';
    const filter = { propertyName: input.property, operator, ...(input.value !== undefined && !operator.includes('HAS_PROPERTY') ? { value: String(input.value) } : {}) };
    const limit = input.limit ?? FIND_LIMIT_DEFAULT;
    const found: HubSpotObject[] = [];
    let total = 0;
    let after: string | undefined;
    do {
      const page = await client.search(input.module, {
        filterGroups: [{ filters: [filter] }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
        ...(input.properties?.length ? { properties: input.properties } : {}),
        limit: Math.min(SEARCH_PAGE_MAX, limit - found.length),
        ...(after ? { after } : {}),
      });
      total = page.total ?? found.length + page.results.length;
      found.push(...page.results);
      after = page.paging?.next?.after;
    } while (after && found.length < limit);
    return { records: found.slice(0, limit).map(recordJson), total };
  },
});

export const hubspotActions = [createRecord, updateRecord, upsertRecord, findRecords];
