import { Type, ValidationError } from '../../core';
import { defineOptions, expectOk, type FlowOption } from '../flows';
import { hubspotAuth } from './auth';
import { HUBSPOT, hubspotClient, type HubSpotClient, type HubSpotSchema } from './client';
import { hubspotCrmDeps } from './deps';
import { Module } from './inputs';
import { STANDARD_OBJECTS, recordLabel, standardObject } from './objects';

/** Options per page of `module_fields` (paged here: HubSpot answers every property at once) and of `records`. */
export const OPTIONS_PAGE_SIZE = 100;

const matches = (search: string | null, ...texts: string[]) => {
  const wanted = search?.trim().toLowerCase();
  return !wanted || texts.some((text) => text.toLowerCase().includes(wanted));
};

const NOT_A_CURSOR = () => new ValidationError({ cursor: ['is not a cursor this list returned'] });

/** The module_fields cursor: an offset into the matching properties, opaque to clients. */
const encodeOffset = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeOffset(cursor: string | null): number {
  if (cursor === null) return 0;
  const match = /^offset:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw NOT_A_CURSOR();
  return Number(match[1]);
}

/** The type id a custom object's URLs take: `objectTypeId` (`2-123456`), older answers only carry the numeric `id`. */
const customTypeId = (schema: HubSpotSchema) => schema.objectTypeId ?? `2-${schema.id}`;

/**
 * Custom object schemas, or none when the account did not grant the optional custom-object
 * scope (403): standard objects stay usable. Any other refusal is the connection's problem.
 */
async function customObjects(client: HubSpotClient): Promise<HubSpotSchema[]> {
  const response = await client.schemas();
  if (response.status === 403) return [];
  return expectOk(HUBSPOT, response, 'list the custom objects').json<{ results?: HubSpotSchema[] }>().results ?? [];
}

const modules = defineOptions({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  kind: 'modules',
  description:
    'The object types (modules) of the HubSpot account: contacts, companies, deals, tickets, and its custom objects when the connection may read them ' +
    '(value: the object type, or a custom object’s type id such as `2-123456`). Searched by label.',
  params: Type.Object({}, { additionalProperties: false }),
  searchable: true,
  async load({ http, deps, search }) {
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    const standard: FlowOption[] = STANDARD_OBJECTS.map((object) => ({ label: object.label, value: object.objectType }));
    const custom: FlowOption[] = (await customObjects(client)).map((schema) => ({ label: schema.labels?.plural ?? schema.name, value: customTypeId(schema) }));
    return { options: [...standard, ...custom].filter((option) => matches(search, option.label, option.value)), nextCursor: null };
  },
});

const moduleFields = defineOptions({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  kind: 'module_fields',
  description:
    'The properties of `params.module` (label: the property’s label, value: its internal name), hidden ones left out. Searched by label or name, ' +
    `${OPTIONS_PAGE_SIZE} a page.`,
  params: Type.Object({ module: Module }, { additionalProperties: false }),
  searchable: true,
  async load({ http, deps, params, search, cursor }) {
    const offset = decodeOffset(cursor);
    const { results } = await hubspotClient(http, deps.config.get('hubspotApiBaseUrl')).properties(params.module);
    const found = results.filter((property) => !property.hidden && matches(search, property.label, property.name));
    const end = offset + OPTIONS_PAGE_SIZE;
    return {
      options: found.slice(offset, end).map((property) => ({ label: property.label || property.name, value: property.name })),
      nextCursor: end < found.length ? encodeOffset(end) : null,
    };
  },
});

/** HubSpot's `after` cursors are short tokens (digits today); anything else was not returned by this list. */
const HUBSPOT_CURSOR = /^[A-Za-z0-9_=-]{1,200}$/;

/** The property that names a custom object's records, from its schema; none when the schema cannot be read. */
async function customDisplayProperty(client: HubSpotClient, objectType: string): Promise<string | undefined> {
  try {
    return (await client.schema(objectType)).primaryDisplayProperty;
  } catch {
    return undefined;
  }
}

const records = defineOptions({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  kind: 'records',
  description:
    'Records of `params.module` (label: a contact’s name and email, another record’s name; value: the record id), searched by HubSpot’s search ' +
    `(its default searchable properties) and paged with its cursor, ${OPTIONS_PAGE_SIZE} a page.`,
  params: Type.Object({ module: Module }, { additionalProperties: false }),
  searchable: true,
  async load({ http, deps, params, search, cursor }) {
    if (cursor !== null && !HUBSPOT_CURSOR.test(cursor)) throw NOT_A_CURSOR();
    const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
    const standard = standardObject(params.module);
    const displayProperty = standard ? undefined : await customDisplayProperty(client, params.module);
    const properties = standard?.display ?? (displayProperty ? [displayProperty] : []);
    const query = search?.trim();
    const page = await client.search(params.module, {
      ...(query ? { query } : {}),
      ...(properties.length > 0 ? { properties } : {}),
      limit: OPTIONS_PAGE_SIZE,
      ...(cursor ? { after: cursor } : {}),
    });
    return {
      options: page.results.map((record) => ({ label: recordLabel(params.module, record.id, record.properties, displayProperty), value: record.id })),
      nextCursor: page.paging?.next?.after ?? null,
    };
  },
});

export const hubspotOptions = [modules, moduleFields, records];
