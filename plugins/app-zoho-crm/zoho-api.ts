import type { EgressResponse } from '../../core';
import { expectOk, VendorError, type ConnectionHttp } from '../flows';

/**
 * The Zoho CRM v2 API as the app uses it. Every call goes through `context.http` (the
 * connection's token applied and kept fresh) and every answer through `expectOk`, so a
 * refusal reaches the user as a sentence. Shapes follow Zoho's documentation: lists
 * answer `{data, info}` and 204 when nothing matches (304 when nothing changed since
 * `If-Modified-Since`); writes take `{data: [record]}` and answer one result per record.
 */

export const ZOHO = 'Zoho CRM';

/** Zoho's page size cap for records and search. */
export const MAX_PER_PAGE = 200;

export type ZohoRecord = { id: string } & Record<string, unknown>;

export interface ZohoModule {
  api_name: string;
  module_name?: string;
  plural_label?: string;
  singular_label?: string;
  api_supported?: boolean;
}

export interface ZohoField {
  api_name: string;
  field_label?: string;
  data_type?: string;
  read_only?: boolean;
}

/** `info` of a list: `next_page_token` is given by the versions that page with tokens (needed past 2,000 records). */
export interface ZohoInfo {
  per_page?: number;
  count?: number;
  page?: number;
  more_records?: boolean;
  next_page_token?: string | null;
}

export interface RecordsPage {
  records: ZohoRecord[];
  info: ZohoInfo;
}

/** Where a list page starts: a page number, or a token Zoho gave for the next page (never both: Zoho refuses that). */
export type PageStart = { page: number } | { pageToken: string };

export interface ListRecordsOptions {
  start?: PageStart;
  perPage?: number;
  sortBy?: string;
  sortOrder?: 'asc' | 'desc';
  /** Only records modified since then (Zoho's `If-Modified-Since`, ISO 8601). */
  modifiedSince?: string;
}

/** What a write answered for its one record. */
export interface WriteResult {
  code: string;
  status: string;
  message?: string;
  details: Record<string, unknown>;
  /** Upsert: whether the record was inserted or updated, and the field that matched. */
  action?: string;
  duplicate_field?: string | null;
}

type WriteKind = 'create' | 'update' | 'upsert';

/** The part of the config the client reads (the typed plugin config satisfies it). */
export interface ZohoConfigReader {
  get(key: 'zohoApiBaseUrl'): string;
}

/** A record as the app outputs it: `id` first (a string), then the fields as Zoho named them. */
export function normalizeRecord(raw: Record<string, unknown>): ZohoRecord {
  const { id, ...fields } = raw;
  return { id: String(id), ...fields };
}

/** An answer's JSON, or null when Zoho said there is nothing (204, 304, or an empty body). */
function bodyOf<T>(response: EgressResponse): T | null {
  if (response.status === 204 || response.status === 304 || response.body.length === 0) return null;
  return response.json<T>();
}

/** A page from a list answer: none when Zoho answered "no content". */
function pageOf(response: EgressResponse): RecordsPage {
  const body = bodyOf<{ data?: Array<Record<string, unknown>>; info?: ZohoInfo }>(response);
  return { records: (body?.data ?? []).map(normalizeRecord), info: body?.info ?? { more_records: false } };
}

/** Where the page after `page` starts: Zoho's token when it gave one, else the next page number; null at the end. */
export function nextStart(page: RecordsPage, current: PageStart): PageStart | null {
  if (!page.info.more_records) return null;
  if (page.info.next_page_token) return { pageToken: page.info.next_page_token };
  return { page: ('page' in current ? current.page : (page.info.page ?? 1)) + 1 };
}

/** A time as Zoho writes it: ISO 8601 to the second, with an offset (`2024-05-02T04:45:00+00:00`). */
export const zohoTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Zoho criteria values escape parentheses and commas with a backslash (and so the backslash itself). */
export const escapeCriteriaValue = (value: string): string => value.replace(/[\\(),]/g, (char) => `\\${char}`);

/**
 * A refusal of one record in a write's answer (`status: "error"`), as a VendorError that
 * names Zoho's code and the field it points at: "required field not found (MANDATORY_NOT_FOUND, field Last_Name)".
 */
function writeRefusal(response: EgressResponse, what: string): VendorError | null {
  let result: (Partial<WriteResult> & { details?: { api_name?: string } }) | undefined;
  try {
    result = bodyOf<{ data?: WriteResult[] }>(response)?.data?.[0];
  } catch {
    return null;
  }
  if (!result || result.status === 'success') return null;
  const field = typeof result.details?.api_name === 'string' ? `, field ${result.details.api_name}` : '';
  return new VendorError(ZOHO, response.status, `${ZOHO} refused to ${what}: ${result.message ?? 'no reason given'} (${result.code ?? 'error'}${field})`);
}

export function zohoClient(http: ConnectionHttp, config: ZohoConfigReader) {
  const base = `${config.get('zohoApiBaseUrl').replace(/\/+$/, '')}/crm/v2`;
  const moduleUrl = (module: string, ...rest: string[]) => [base, ...[module, ...rest].map(encodeURIComponent)].join('/');
  const startQuery = (start: PageStart | undefined) => (start && 'pageToken' in start ? { page_token: start.pageToken } : { page: start?.page ?? 1 });

  /** A write of one record: the HTTP status and the record's own status both checked. */
  async function write(kind: WriteKind, module: string, record: Record<string, unknown>, options: { id?: string; duplicateCheckFields?: string[] } = {}): Promise<WriteResult> {
    const what = { create: `create a ${module} record`, update: `update the ${module} record ${options.id}`, upsert: `upsert a ${module} record` }[kind];
    const url = kind === 'create' ? moduleUrl(module) : kind === 'update' ? moduleUrl(module, options.id!) : moduleUrl(module, 'upsert');
    const body = { data: [record], ...(options.duplicateCheckFields ? { duplicate_check_fields: options.duplicateCheckFields } : {}) };
    // No Idempotency-Key: Zoho ignores it, and it would let the egress client repeat a POST that may have created a record.
    const response = await http.request(url, { method: kind === 'update' ? 'PUT' : 'POST', body });
    const refusal = response.status < 500 && response.status !== 401 && response.status !== 403 && response.status !== 429 ? writeRefusal(response, what) : null;
    if (refusal) throw refusal;
    expectOk(ZOHO, response, what);
    const result = bodyOf<{ data?: WriteResult[] }>(response)?.data?.[0];
    if (!result?.details || result.details.id === undefined) throw new VendorError(ZOHO, response.status, `${ZOHO} answered no record id when asked to ${what}`);
    return result;
  }

  return {
    /** Every module of the account (Zoho does not page this list). */
    async modules(): Promise<ZohoModule[]> {
      const response = expectOk(ZOHO, await http.request(`${base}/settings/modules`), 'list the modules');
      return bodyOf<{ modules?: ZohoModule[] }>(response)?.modules ?? [];
    },

    /** Every field of a module (not paged either). */
    async fields(module: string): Promise<ZohoField[]> {
      const response = expectOk(ZOHO, await http.request(`${base}/settings/fields`, { query: { module } }), `list the fields of ${module}`);
      return bodyOf<{ fields?: ZohoField[] }>(response)?.fields ?? [];
    },

    /** One page of a module's records. */
    async records(module: string, options: ListRecordsOptions = {}): Promise<RecordsPage> {
      const query = {
        ...startQuery(options.start),
        per_page: options.perPage ?? MAX_PER_PAGE,
        ...(options.sortBy ? { sort_by: options.sortBy, sort_order: options.sortOrder ?? 'asc' } : {}),
      };
      const headers = options.modifiedSince ? { 'if-modified-since': options.modifiedSince } : undefined;
      const response = await http.request(moduleUrl(module), { query, ...(headers ? { headers } : {}) });
      if (response.status === 304) return { records: [], info: { more_records: false } };
      return pageOf(expectOk(ZOHO, response, `list the ${module} records`));
    },

    /** One page of the records a search finds: `criteria` (`(Email:equals:a@b.c)`) or a `word` anywhere in them. */
    async search(module: string, by: { criteria: string } | { word: string }, page = 1, perPage = MAX_PER_PAGE): Promise<RecordsPage> {
      const response = await http.request(moduleUrl(module, 'search'), { query: { ...by, page, per_page: perPage } });
      return pageOf(expectOk(ZOHO, response, `search the ${module} records`));
    },

    create: (module: string, record: Record<string, unknown>) => write('create', module, record),
    update: (module: string, id: string, record: Record<string, unknown>) => write('update', module, record, { id }),
    upsert: (module: string, record: Record<string, unknown>, duplicateCheckFields: string[]) => write('upsert', module, record, { duplicateCheckFields }),
  };
}

export type ZohoClient = ReturnType<typeof zohoClient>;
