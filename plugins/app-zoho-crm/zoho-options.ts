import { Type, ValidationError, type Static, type TSchema } from '../../core';
import { defineOptions, type FlowOption } from '../flows';
import { zohoAuth, zohoDeps } from './auth';
import { MAX_PER_PAGE, nextStart, zohoClient, type PageStart, type RecordsPage, type ZohoRecord } from './zoho-api';

/**
 * The option lists of a CRM app (spec: modules, module_fields (params.module), records
 * (params.module)). Values are Zoho's API names and record ids; labels what users see in
 * Zoho. Zoho pages records itself, so `records` passes the search and the cursor on;
 * modules and fields come whole, and are filtered here by the search.
 */

const moduleParams = Type.Object(
  { module: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z][A-Za-z0-9_]*$', description: 'API name of the Zoho CRM module (Leads, Contacts, Deals, a custom module)' }) },
  { additionalProperties: false },
);

const matches = (search: string | null, ...texts: Array<string | undefined>) =>
  !search || texts.some((text) => text?.toLowerCase().includes(search.trim().toLowerCase()));

/** Fields that name a record in Zoho's standard modules, in the order tried; then any `*_Name`, then the id. */
const NAME_FIELDS = ['Full_Name', 'Name', 'Account_Name', 'Deal_Name', 'Product_Name', 'Vendor_Name', 'Campaign_Name', 'Subject', 'Last_Name', 'Email'];

export function recordLabel(record: ZohoRecord): string {
  const named = NAME_FIELDS.map((field) => record[field]).find((value) => typeof value === 'string' && value.trim() !== '');
  if (typeof named === 'string') return named;
  const other = Object.entries(record).find(([field, value]) => field.endsWith('_Name') && typeof value === 'string' && value.trim() !== '');
  return other ? String(other[1]) : record.id;
}

/** Cursors of the records list: the page token Zoho gave (`t:`), or the next page number (`p:`). */
const encodeCursor = (start: PageStart): string => ('pageToken' in start ? `t:${start.pageToken}` : `p:${start.page}`);

function decodeCursor(cursor: string | null): PageStart {
  if (cursor === null || cursor === '') return { page: 1 };
  if (cursor.startsWith('t:') && cursor.length > 2) return { pageToken: cursor.slice(2) };
  if (/^p:[1-9]\d{0,5}$/.test(cursor)) return { page: Number(cursor.slice(2)) };
  throw ValidationError.field('cursor', 'is not a cursor this list returned');
}

/**
 * A list Zoho answers whole (modules, a module's fields): fetched on each load, filtered here
 * by the search over the texts `searchIn` gives, and answered as one page.
 */
function wholeList<P extends TSchema, T>(list: {
  kind: string;
  description: string;
  params: P;
  fetch(client: ReturnType<typeof zohoClient>, params: Static<P>): Promise<T[]>;
  searchIn(item: T): Array<string | undefined>;
  option(item: T): FlowOption;
}) {
  const { fetch, searchIn, option, ...provider } = list;
  return defineOptions({
    auth: zohoAuth,
    deps: zohoDeps,
    ...provider,
    searchable: true,
    async load({ http, deps, params, search }) {
      const items = await fetch(zohoClient(http, deps.config), params);
      return { options: items.filter((item) => matches(search, ...searchIn(item))).map(option), nextCursor: null };
    },
  });
}

export const modulesOptions = wholeList({
  kind: 'modules',
  description: 'The modules of the Zoho CRM account that its API serves',
  params: Type.Object({}, { additionalProperties: false }),
  fetch: async (client) => (await client.modules()).filter((module) => module.api_supported !== false),
  searchIn: (module) => [module.plural_label, module.module_name, module.api_name],
  option: (module) => ({ label: module.plural_label ?? module.module_name ?? module.api_name, value: module.api_name }),
});

export const moduleFieldsOptions = wholeList({
  kind: 'module_fields',
  description: 'The fields of a Zoho CRM module, by API name',
  params: moduleParams,
  fetch: (client, params) => client.fields(params.module),
  searchIn: (field) => [field.field_label, field.api_name],
  option: (field) => ({ label: field.field_label ? `${field.field_label} (${field.api_name})` : field.api_name, value: field.api_name }),
});

export const recordsOptions = defineOptions({
  auth: zohoAuth,
  deps: zohoDeps,
  kind: 'records',
  description: "Records of a Zoho CRM module; a search goes to Zoho's search by word",
  params: moduleParams,
  searchable: true,
  async load({ http, deps, params, search, cursor }) {
    const client = zohoClient(http, deps.config);
    const start = decodeCursor(cursor);
    const word = search?.trim() ?? '';
    let page: RecordsPage;
    let next: PageStart | null;
    if (word !== '') {
      // Zoho's search pages by number only.
      if (!('page' in start)) throw ValidationError.field('cursor', 'is not a cursor this list returned');
      page = await client.search(params.module, { word }, start.page, MAX_PER_PAGE);
      next = page.info.more_records ? { page: start.page + 1 } : null;
    } else {
      page = await client.records(params.module, { start, perPage: MAX_PER_PAGE });
      next = nextStart(page, start);
    }
    return { options: page.records.map((record) => ({ label: recordLabel(record), value: record.id })), nextCursor: next && encodeCursor(next) };
  },
});

export const zohoOptions = [modulesOptions, moduleFieldsOptions, recordsOptions];
