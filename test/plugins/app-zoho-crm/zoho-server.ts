import { randomBytes } from 'node:crypto';
import { startVendorServer, type OAuthServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../plugins/flows/testing-kit';

/**
 * A Zoho CRM v2 API played on loopback, as Zoho documents it: modules and fields metadata,
 * records listed by page or page token (`info.more_records`, `info.next_page_token`),
 * sorted, filtered by `If-Modified-Since` (304 when nothing changed), searched by
 * `criteria`/`word`/`email` (204 when nothing matches), written with `{data: [...]}`
 * (create, update, upsert with `duplicate_check_fields`). It holds its records, so what is
 * created can be found, refuses a token the fake authorization server did not issue (401),
 * checks what it is sent (400 with Zoho's codes), and answers queued failures on demand.
 */

export type ZohoRecordState = Record<string, unknown> & { id: string; Created_Time: string; Modified_Time: string };

export interface ZohoModuleState {
  api_name: string;
  plural_label: string;
  singular_label: string;
  api_supported: boolean;
  fields: Array<{ api_name: string; field_label: string; data_type: string; system_mandatory: boolean }>;
}

export interface ZohoState {
  modules: ZohoModuleState[];
  records: Record<string, ZohoRecordState[]>;
  /** The fake's clock (ms, whole seconds): each write happens at it, then it moves a second on. */
  now: number;
  /** Zoho ids are 19-digit numbers, past what a JavaScript number holds exactly. */
  nextId: bigint;
  /** Answers for the next requests, whatever they ask (a 429, a 500), in order. */
  failures: VendorReply[];
  /** Page tokens issued: where the next page starts, for which listing. */
  pageTokens: Map<string, { module: string; offset: number; signature: string }>;
}

export interface ZohoServerOptions {
  /** The fake authorization server whose access tokens are accepted. */
  oauth: Pick<OAuthServer, 'accepts'>;
  /** Page tokens are issued from this many records on (Zoho: past 2,000 pages need them); default 0, always. */
  tokensFrom?: number;
}

const USER = { name: 'Patricia Boyle', id: '4876876000000327001' };
const ZOHO_OFFSET_MS = 330 * 60_000;

/** A time as Zoho writes it for an account in India (+05:30): a text comparison would order it wrongly against UTC. */
export function zohoTimeOf(ms: number): string {
  return `${new Date(ms + ZOHO_OFFSET_MS).toISOString().slice(0, 19)}+05:30`;
}

const standardFields = (extra: string[]) =>
  [
    { api_name: 'Last_Name', field_label: 'Last Name', data_type: 'text', system_mandatory: true },
    { api_name: 'First_Name', field_label: 'First Name', data_type: 'text', system_mandatory: false },
    { api_name: 'Full_Name', field_label: 'Full Name', data_type: 'text', system_mandatory: false },
    { api_name: 'Email', field_label: 'Email', data_type: 'email', system_mandatory: false },
    { api_name: 'Phone', field_label: 'Phone', data_type: 'phone', system_mandatory: false },
  ].concat(extra.map((name) => ({ api_name: name, field_label: name.replace(/_/g, ' '), data_type: 'text', system_mandatory: false })));

export function defaultZohoState(): ZohoState {
  return {
    modules: [
      { api_name: 'Leads', plural_label: 'Leads', singular_label: 'Lead', api_supported: true, fields: standardFields(['Company', 'Lead_Source']) },
      { api_name: 'Contacts', plural_label: 'Contacts', singular_label: 'Contact', api_supported: true, fields: standardFields(['Title']) },
      {
        api_name: 'Deals',
        plural_label: 'Deals',
        singular_label: 'Deal',
        api_supported: true,
        fields: [
          { api_name: 'Deal_Name', field_label: 'Deal Name', data_type: 'text', system_mandatory: true },
          { api_name: 'Amount', field_label: 'Amount', data_type: 'currency', system_mandatory: false },
        ],
      },
      { api_name: 'SalesInbox', plural_label: 'SalesInbox', singular_label: 'SalesInbox', api_supported: false, fields: [] },
    ],
    records: { Leads: [], Contacts: [], Deals: [] },
    now: Date.parse('2024-05-02T04:45:00Z'),
    nextId: 4876876000000624001n,
    failures: [],
    pageTokens: new Map(),
  };
}

/** Adds a record as if a user had created it in Zoho, at the fake's clock (or `at`, ms). */
export function seedRecord(state: ZohoState, module: string, fields: Record<string, unknown>, at?: number): ZohoRecordState {
  const time = zohoTimeOf(at ?? tick(state));
  const record: ZohoRecordState = { ...fields, id: String(state.nextId++), Owner: USER, Created_Time: time, Modified_Time: time, Created_By: USER, Modified_By: USER };
  (state.records[module] ??= []).push(record);
  return record;
}

/** Changes a record as if a user had edited it in Zoho. */
export function touchRecord(state: ZohoState, module: string, id: string, fields: Record<string, unknown>, at?: number): ZohoRecordState {
  const record = state.records[module]?.find((candidate) => candidate.id === id);
  if (!record) throw new Error(`no ${module} record ${id}`);
  Object.assign(record, fields, { Modified_Time: zohoTimeOf(at ?? tick(state)), Modified_By: USER });
  return record;
}

function tick(state: ZohoState): number {
  const at = state.now;
  state.now += 1000;
  return at;
}

const error = (status: number, code: string, message: string, details: Record<string, unknown> = {}): VendorReply => ({
  status,
  body: { code, details, message, status: 'error' },
});

const moduleOf = (state: ZohoState, name: string) => state.modules.find((module) => module.api_name === name && module.api_supported);

/** `page`/`per_page`/`page_token` as Zoho checks them. */
function paging(request: VendorRequest): { page: number; perPage: number; token: string | null } | { refusal: VendorReply } {
  const page = request.query.get('page');
  const token = request.query.get('page_token');
  const perPage = Number(request.query.get('per_page') ?? 200);
  if (page !== null && token !== null) return { refusal: error(400, 'INVALID_REQUEST', 'page and page_token cannot be used together') };
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 200) return { refusal: error(400, 'INVALID_DATA', 'per_page must be 1 to 200', { param_name: 'per_page' }) };
  if (page !== null && !/^[1-9]\d*$/.test(page)) return { refusal: error(400, 'INVALID_DATA', 'invalid page', { param_name: 'page' }) };
  return { page: Number(page ?? 1), perPage, token };
}

function listAnswer(state: ZohoState, module: string, all: ZohoRecordState[], request: VendorRequest, signature: string, tokensFrom: number, emptyStatus = 204): VendorReply {
  const paged = paging(request);
  if ('refusal' in paged) return paged.refusal;
  let offset = (paged.page - 1) * paged.perPage;
  if (paged.token !== null) {
    const issued = state.pageTokens.get(paged.token);
    if (!issued || issued.signature !== signature) return error(400, 'INVALID_DATA', 'invalid page_token', { param_name: 'page_token' });
    offset = issued.offset;
  }
  const data = all.slice(offset, offset + paged.perPage);
  if (data.length === 0) return { status: emptyStatus };
  const more = offset + data.length < all.length;
  let next: string | null = null;
  if (more && offset + data.length >= tokensFrom) {
    next = randomBytes(8).toString('hex');
    state.pageTokens.set(next, { module, offset: offset + data.length, signature });
  }
  return {
    body: {
      data,
      info: {
        per_page: paged.perPage,
        next_page_token: next,
        count: data.length,
        page: paged.token === null ? paged.page : Math.floor(offset / paged.perPage) + 1,
        previous_page_token: null,
        page_token_expiry: next ? zohoTimeOf(state.now + 86_400_000) : null,
        more_records: more,
      },
    },
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : typeof value === 'number' ? String(value) : null);

/** `(Field:equals:value)` or `(Field:starts_with:value)`, several joined with `and`; values escape `(`, `)` and `,` with `\`. */
function parseCriteria(criteria: string): Array<{ field: string; operator: string; value: string }> | null {
  const parts = criteria.replace(/^\((\(.*\))\)$/, '$1').split(/\)and\(/);
  const found = [];
  for (const part of parts) {
    const match = /^\(?([A-Za-z][A-Za-z0-9_]*):(equals|starts_with):((?:\\.|[^\\()])*)\)?$/.exec(part);
    if (!match) return null;
    found.push({ field: match[1], operator: match[2], value: match[3].replace(/\\(.)/g, '$1') });
  }
  return found;
}

export async function startZohoServer(options: ZohoServerOptions, state: ZohoState = defaultZohoState()): Promise<VendorServer<ZohoState>> {
  const tokensFrom = options.tokensFrom ?? 0;
  // Every route checks the token and answers the queued failures first, as Zoho's gateway would.
  const guarded =
    (handler: (request: VendorRequest, state: ZohoState) => VendorReply) =>
    (request: VendorRequest, current: ZohoState): VendorReply => {
      const failure = current.failures.shift();
      if (failure) return failure;
      if (!options.oauth.accepts(request.headers.authorization, 'Zoho-oauthtoken')) return error(401, 'INVALID_TOKEN', 'invalid oauth token');
      return handler(request, current);
    };

  const writeBody = (request: VendorRequest): Array<Record<string, unknown>> | VendorReply => {
    let body: { data?: unknown };
    try {
      body = request.json();
    } catch {
      return error(400, 'INVALID_DATA', 'body is not JSON');
    }
    if (!Array.isArray(body.data) || body.data.length === 0 || body.data.length > 100) return error(400, 'INVALID_DATA', 'data must hold 1 to 100 records', { api_name: 'data' });
    return body.data as Array<Record<string, unknown>>;
  };

  const missingMandatory = (module: ZohoModuleState, record: Record<string, unknown>) =>
    module.fields.find((field) => field.system_mandatory && (record[field.api_name] === undefined || record[field.api_name] === null || record[field.api_name] === ''));

  const unknownField = (module: ZohoModuleState, record: Record<string, unknown>) => Object.keys(record).find((name) => name !== 'id' && !module.fields.some((field) => field.api_name === name));

  const refuseRecord = (module: ZohoModuleState, record: Record<string, unknown>, creating: boolean): VendorReply | null => {
    const unknown = unknownField(module, record);
    if (unknown) return { status: 400, body: { data: [{ code: 'INVALID_DATA', details: { api_name: unknown }, message: 'invalid data', status: 'error' }] } };
    const missing = creating ? missingMandatory(module, record) : undefined;
    if (missing) return { status: 400, body: { data: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: missing.api_name }, message: 'required field not found', status: 'error' }] } };
    return null;
  };

  const insert = (current: ZohoState, module: ZohoModuleState, record: Record<string, unknown>) => {
    const time = zohoTimeOf(tick(current));
    const stored: ZohoRecordState = { ...record, id: String(current.nextId++), Owner: USER, Created_Time: time, Modified_Time: time, Created_By: USER, Modified_By: USER };
    (current.records[module.api_name] ??= []).push(stored);
    return stored;
  };

  const update = (current: ZohoState, stored: ZohoRecordState, record: Record<string, unknown>) => {
    const { id: _ignored, ...fields } = record;
    Object.assign(stored, fields, { Modified_Time: zohoTimeOf(tick(current)), Modified_By: USER });
    return stored;
  };

  const details = (stored: ZohoRecordState) => ({
    Modified_Time: stored.Modified_Time,
    Modified_By: USER,
    Created_Time: stored.Created_Time,
    id: stored.id,
    Created_By: USER,
  });

  return startVendorServer<ZohoState>(
    {
      'GET /crm/v2/settings/modules': guarded((_request, current) => ({
        body: { modules: current.modules.map(({ fields: _fields, ...module }) => ({ ...module, module_name: module.api_name, creatable: true, viewable: true })) },
      })),

      'GET /crm/v2/settings/fields': guarded((request, current) => {
        const name = request.query.get('module');
        if (!name) return error(400, 'REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param: 'module' });
        const module = moduleOf(current, name);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid', { param: 'module' });
        return { body: { fields: module.fields.map((field, index) => ({ ...field, id: String(4876876000000002000n + BigInt(index)), read_only: false })) } };
      }),

      'GET /crm/v2/:module/search': guarded((request, current) => {
        const module = moduleOf(current, request.params.module);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
        const criteria = request.query.get('criteria');
        const word = request.query.get('word');
        const email = request.query.get('email');
        const given = [criteria, word, email].filter((value) => value !== null);
        if (given.length !== 1) return error(400, 'REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param: 'criteria, word, email or phone' });
        let match: (record: ZohoRecordState) => boolean;
        if (criteria !== null) {
          const conditions = parseCriteria(criteria);
          if (!conditions) return error(400, 'INVALID_QUERY', 'invalid query formed', { criteria });
          const unknown = conditions.find((condition) => !module.fields.some((field) => field.api_name === condition.field));
          if (unknown) return error(400, 'INVALID_QUERY', 'invalid query formed', { api_name: unknown.field, reason: 'the field is not available' });
          match = (record) =>
            conditions.every(({ field, operator, value }) => {
              const stored = text(record[field]);
              return stored !== null && (operator === 'equals' ? stored === value.toLowerCase() : stored.startsWith(value.toLowerCase()));
            });
        } else if (word !== null) {
          match = (record) => Object.values(record).some((value) => text(value)?.includes(word.toLowerCase()) === true);
        } else {
          match = (record) => text(record.Email) === email!.toLowerCase();
        }
        const found = (current.records[module.api_name] ?? []).filter(match);
        return listAnswer(current, module.api_name, found, request, `search:${request.path}?${criteria ?? word ?? email}`, Number.POSITIVE_INFINITY);
      }),

      'GET /crm/v2/:module': guarded((request, current) => {
        const module = moduleOf(current, request.params.module);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
        const sortBy = request.query.get('sort_by') ?? 'id';
        const sortOrder = request.query.get('sort_order') ?? 'desc';
        if (!['id', 'Created_Time', 'Modified_Time'].includes(sortBy)) return error(400, 'INVALID_DATA', 'invalid sort_by', { param_name: 'sort_by' });
        if (!['asc', 'desc'].includes(sortOrder)) return error(400, 'INVALID_DATA', 'invalid sort_order', { param_name: 'sort_order' });
        let records = [...(current.records[module.api_name] ?? [])];
        const since = request.headers['if-modified-since'];
        if (typeof since === 'string') {
          const sinceMs = Date.parse(since);
          if (Number.isNaN(sinceMs)) return error(400, 'INVALID_DATA', 'invalid If-Modified-Since');
          // Zoho's header is to the second; this fake includes that second.
          records = records.filter((record) => Date.parse(record.Modified_Time) >= sinceMs);
        }
        const key = (record: ZohoRecordState) => (sortBy === 'id' ? BigInt(record.id) : BigInt(Date.parse(String(record[sortBy]))));
        records.sort((a, b) => {
          const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : BigInt(a.id) < BigInt(b.id) ? -1 : 1;
          return sortOrder === 'asc' ? order : -order;
        });
        const signature = `list:${module.api_name}:${sortBy}:${sortOrder}:${String(since ?? '')}`;
        return listAnswer(current, module.api_name, records, request, signature, tokensFrom, typeof since === 'string' ? 304 : 204);
      }),

      'POST /crm/v2/:module/upsert': guarded((request, current) => {
        const module = moduleOf(current, request.params.module);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
        const records = writeBody(request);
        if (!Array.isArray(records)) return records;
        const checks = (request.json() as { duplicate_check_fields?: unknown }).duplicate_check_fields;
        if (checks !== undefined && (!Array.isArray(checks) || checks.some((name) => !module.fields.some((field) => field.api_name === name)))) {
          return error(400, 'INVALID_DATA', 'invalid duplicate_check_fields', { api_name: 'duplicate_check_fields' });
        }
        const data = records.map((record) => {
          const refusal = refuseRecord(module, record, false);
          if (refusal) return (refusal.body as { data: unknown[] }).data[0];
          const field = ((checks as string[] | undefined) ?? ['Email']).find((name) => record[name] !== undefined);
          const existing = field ? current.records[module.api_name]?.find((stored) => text(stored[field]) === text(record[field])) : undefined;
          if (existing) return { code: 'SUCCESS', duplicate_field: field, action: 'update', details: details(update(current, existing, record)), message: 'record updated', status: 'success' };
          const missing = missingMandatory(module, record);
          if (missing) return { code: 'MANDATORY_NOT_FOUND', details: { api_name: missing.api_name }, message: 'required field not found', status: 'error' };
          return { code: 'SUCCESS', duplicate_field: null, action: 'insert', details: details(insert(current, module, record)), message: 'record added', status: 'success' };
        });
        const failed = data.every((result) => (result as { status: string }).status === 'error');
        return { status: failed ? 400 : 200, body: { data } };
      }),

      'POST /crm/v2/:module': guarded((request, current) => {
        const module = moduleOf(current, request.params.module);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
        const records = writeBody(request);
        if (!Array.isArray(records)) return records;
        const refusal = records.map((record) => refuseRecord(module, record, true)).find(Boolean);
        if (refusal) return refusal;
        const data = records.map((record) => ({ code: 'SUCCESS', details: details(insert(current, module, record)), message: 'record added', status: 'success' }));
        return { status: 201, body: { data } };
      }),

      'PUT /crm/v2/:module/:id': guarded((request, current) => {
        const module = moduleOf(current, request.params.module);
        if (!module) return error(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
        const records = writeBody(request);
        if (!Array.isArray(records)) return records;
        if (records.length !== 1) return error(400, 'INVALID_DATA', 'one record per request to a record URL');
        const stored = current.records[module.api_name]?.find((record) => record.id === request.params.id);
        if (!stored) return { status: 400, body: { data: [{ code: 'INVALID_DATA', details: { id: request.params.id }, message: 'the related id given seems to be invalid', status: 'error' }] } };
        const refusal = refuseRecord(module, records[0], false);
        if (refusal) return refusal;
        return { body: { data: [{ code: 'SUCCESS', details: details(update(current, stored, records[0])), message: 'record updated', status: 'success' }] } };
      }),
    },
    { state },
  );
}
