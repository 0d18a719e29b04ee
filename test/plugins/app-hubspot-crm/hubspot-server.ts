import { startVendorServer, type OAuthServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../plugins/flows/testing-kit';

/**
 * A HubSpot CRM v3 API played on loopback, following HubSpot's documented shapes: the
 * objects endpoints (list, read, create, update by id or by a unique `idProperty`), search
 * (`filterGroups`, `sorts`, `query`, `properties`, `limit` at most 200, `after`, at most
 * 10,000 results), batch upsert, the properties and custom-object schemas endpoints, and
 * the OAuth token endpoint (`/oauth/v3/token`, passed on to the fake authorization server).
 * It holds records, checks the bearer token against the authorization server (401 for a
 * token it did not issue or has expired), and answers a failure on demand (`failNext`).
 */

/** Where HubSpot's OAuth endpoints are: give these to `startOAuthServer`. */
export const HUBSPOT_OAUTH_PATHS = { authorizePath: '/oauth/authorize', tokenPath: '/oauth/v3/token' } as const;

export interface HubSpotRecord {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface PropertyDefinition {
  name: string;
  label: string;
  type: 'string' | 'number' | 'datetime' | 'date' | 'enumeration' | 'bool';
  fieldType: string;
  groupName: string;
  hasUniqueValue: boolean;
  hidden: boolean;
  calculated: boolean;
  modificationMetadata: { archivable: boolean; readOnlyDefinition: boolean; readOnlyValue: boolean };
}

export interface CustomSchema {
  id: string;
  objectTypeId: string;
  name: string;
  fullyQualifiedName: string;
  labels: { singular: string; plural: string };
  primaryDisplayProperty: string;
}

export interface HubSpotState {
  /** Records by object type: `contacts`, `companies`, `deals`, `tickets`, or a custom object's type id. */
  records: Record<string, HubSpotRecord[]>;
  properties: Record<string, PropertyDefinition[]>;
  schemas: CustomSchema[];
  /** False: the connection was not granted the optional custom-object scopes (the schemas endpoint answers 403). */
  customScopeGranted: boolean;
  /** The next requests to the CRM API answer these instead (a 429 with `Retry-After`, a 503, ...), in order. */
  failNext: Array<{ status: number; retryAfter?: number; message?: string }>;
  /** The clock records are stamped with (ms); a test moves it. */
  now: () => number;
  nextId: number;
}

const STANDARD_TYPES: Record<string, string> = { contacts: 'contacts', '0-1': 'contacts', companies: 'companies', '0-2': 'companies', deals: 'deals', '0-3': 'deals', tickets: 'tickets', '0-5': 'tickets' };

/** The property holding a record's last change: `lastmodifieddate` on contacts, `hs_lastmodifieddate` elsewhere (HubSpot's defaults). */
export const lastModifiedOf = (type: string) => (type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate');
const createdOf = (type: string) => (STANDARD_TYPES[type] ? 'createdate' : 'hs_createdate');

/** The properties HubSpot returns when a request names none. */
const DEFAULT_PROPERTIES: Record<string, string[]> = {
  contacts: ['firstname', 'lastname', 'email', 'createdate', 'lastmodifieddate', 'hs_object_id'],
  companies: ['name', 'domain', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  deals: ['dealname', 'amount', 'dealstage', 'pipeline', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  tickets: ['subject', 'content', 'hs_pipeline_stage', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
};

/** What `query` searches in (HubSpot's default searchable properties). */
const SEARCHABLE: Record<string, string[]> = {
  contacts: ['firstname', 'lastname', 'email', 'phone', 'company'],
  companies: ['name', 'domain', 'website', 'phone'],
  deals: ['dealname'],
  tickets: ['subject', 'content'],
};

export function property(name: string, label: string, extra: Partial<PropertyDefinition> = {}): PropertyDefinition {
  return {
    name,
    label,
    type: 'string',
    fieldType: 'text',
    groupName: 'information',
    hasUniqueValue: false,
    hidden: false,
    calculated: false,
    modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
    ...extra,
  };
}

const readOnly = (name: string, label: string, type: PropertyDefinition['type'] = 'datetime') =>
  property(name, label, { type, fieldType: type === 'datetime' ? 'date' : 'number', modificationMetadata: { archivable: false, readOnlyDefinition: true, readOnlyValue: true } });

function initialProperties(): Record<string, PropertyDefinition[]> {
  const stamps = (type: string) => [readOnly('hs_object_id', 'Record ID', 'number'), readOnly(createdOf(type), 'Create Date'), readOnly(lastModifiedOf(type), 'Last Modified Date')];
  return {
    contacts: [
      property('email', 'Email'),
      property('firstname', 'First Name'),
      property('lastname', 'Last Name'),
      property('phone', 'Phone Number'),
      property('company', 'Company Name'),
      property('lifecyclestage', 'Lifecycle Stage', { type: 'enumeration', fieldType: 'radio' }),
      property('hs_internal_flag', 'Internal flag', { hidden: true }),
      ...stamps('contacts'),
    ],
    companies: [property('name', 'Company name'), property('domain', 'Company Domain Name'), property('industry', 'Industry'), ...stamps('companies')],
    deals: [property('dealname', 'Deal Name'), property('amount', 'Amount', { type: 'number', fieldType: 'number' }), property('dealstage', 'Deal Stage'), property('pipeline', 'Pipeline'), ...stamps('deals')],
    tickets: [property('subject', 'Ticket name'), property('content', 'Ticket description'), property('hs_pipeline_stage', 'Ticket status'), ...stamps('tickets')],
    '2-9001': [property('project_name', 'Project name'), property('project_code', 'Project code', { hasUniqueValue: true }), ...stamps('2-9001')],
  };
}

const PROJECTS: CustomSchema = {
  id: '9001',
  objectTypeId: '2-9001',
  name: 'project',
  fullyQualifiedName: 'p4242_project',
  labels: { singular: 'Project', plural: 'Projects' },
  primaryDisplayProperty: 'project_name',
};

/** A HubSpot-style error body (`status`, `message`, `correlationId`, `category`). */
const error = (status: number, message: string, category: string, headers: Record<string, string> = {}): VendorReply => ({
  status,
  headers,
  body: { status: 'error', message, correlationId: '4b4c0a4e-0000-4000-8000-000000000000', category },
});

function typeOf(state: HubSpotState, raw: string): string | null {
  if (STANDARD_TYPES[raw]) return STANDARD_TYPES[raw];
  const schema = state.schemas.find((candidate) => [candidate.objectTypeId, candidate.fullyQualifiedName, candidate.name].includes(raw));
  return schema?.objectTypeId ?? null;
}

/** A comparable number for a value: a millisecond timestamp, an ISO date, or a number. */
function comparable(value: string | null | undefined): number {
  if (value === null || value === undefined || value === '') return Number.NaN;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return Date.parse(value);
}

interface Filter {
  propertyName: string;
  operator: string;
  value?: string;
  highValue?: string;
}

function passes(record: HubSpotRecord, filter: Filter): boolean {
  const actual = filter.propertyName === 'hs_object_id' ? record.id : record.properties[filter.propertyName];
  const present = actual !== null && actual !== undefined && actual !== '';
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return present;
    case 'NOT_HAS_PROPERTY':
      return !present;
    case 'EQ':
      return present && String(actual).toLowerCase() === String(filter.value).toLowerCase();
    case 'NEQ':
      return !present || String(actual).toLowerCase() !== String(filter.value).toLowerCase();
    case 'CONTAINS_TOKEN': {
      const pattern = new RegExp(`^${String(filter.value).toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      return present && String(actual).toLowerCase().split(/\s+/).some((word) => pattern.test(word));
    }
    case 'GT':
      return comparable(actual) > comparable(filter.value);
    case 'GTE':
      return comparable(actual) >= comparable(filter.value);
    case 'LT':
      return comparable(actual) < comparable(filter.value);
    case 'LTE':
      return comparable(actual) <= comparable(filter.value);
    default:
      throw new Error(`unknown operator ${filter.operator}`);
  }
}

export interface StartHubSpotServerOptions {
  /** The fake authorization server (started with HUBSPOT_OAUTH_PATHS) whose access tokens the API accepts. */
  oauth: OAuthServer;
}

export type HubSpotServer = VendorServer<HubSpotState> & {
  /** A record stamped at `at` (ms; the state's clock by default), as if someone made it in HubSpot. */
  seed(type: string, properties: Record<string, string>, at?: number): HubSpotRecord;
  /** Changes a record's properties at `at`, as if someone edited it in HubSpot. */
  touch(type: string, id: string, properties: Record<string, string>, at?: number): HubSpotRecord;
};

export async function startHubSpotServer({ oauth }: StartHubSpotServerOptions): Promise<HubSpotServer> {
  const state: HubSpotState = {
    records: { contacts: [], companies: [], deals: [], tickets: [], '2-9001': [] },
    properties: initialProperties(),
    schemas: [PROJECTS],
    customScopeGranted: true,
    failNext: [],
    now: () => Date.now(),
    nextId: 100,
  };

  const stamp = (record: HubSpotRecord, type: string, at: number) => {
    const iso = new Date(at).toISOString();
    record.updatedAt = iso;
    record.properties[lastModifiedOf(type)] = iso;
  };
  const create = (type: string, properties: Record<string, string | null>, at = state.now()): HubSpotRecord => {
    const id = String(state.nextId++);
    const iso = new Date(at).toISOString();
    const record: HubSpotRecord = { id, properties: { ...properties, hs_object_id: id, [createdOf(type)]: iso }, createdAt: iso, updatedAt: iso, archived: false };
    stamp(record, type, at);
    state.records[type].push(record);
    return record;
  };
  const change = (type: string, record: HubSpotRecord, properties: Record<string, string | null>, at = state.now()) => {
    Object.assign(record.properties, properties);
    stamp(record, type, at);
    return record;
  };

  /** What a response shows of a record: the named properties (null when unset), or the type's defaults. */
  const shown = (type: string, record: HubSpotRecord, names: string[] | null) => {
    const wanted = names ?? DEFAULT_PROPERTIES[type] ?? ['hs_object_id', createdOf(type), lastModifiedOf(type)];
    return { ...record, properties: Object.fromEntries(wanted.map((name) => [name, record.properties[name] ?? null])) };
  };

  /** HubSpot refuses values for properties the type does not have, and for read-only ones. */
  const invalidProperties = (type: string, properties: unknown): string | null => {
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return 'properties must be an object';
    for (const [name, value] of Object.entries(properties)) {
      const definition = state.properties[type].find((candidate) => candidate.name === name);
      if (!definition) return `Property "${name}" does not exist`;
      if (definition.modificationMetadata.readOnlyValue) return `Property "${name}" is read-only`;
      if (typeof value !== 'string') return `Property "${name}" must be sent as a string, got ${typeof value}`;
    }
    return null;
  };

  const uniqueProperty = (type: string, name: string) => (type === 'contacts' && name === 'email') || state.properties[type]?.some((candidate) => candidate.name === name && candidate.hasUniqueValue);
  const findBy = (type: string, name: string, value: string) =>
    state.records[type].find((record) => (name === 'hs_object_id' ? record.id === value : (record.properties[name] ?? '').toLowerCase() === value.toLowerCase()));

  /** The bearer token, the object type and any failure asked for: the reply that stops the request, or the type. */
  const admit = (request: VendorRequest): VendorReply | { type: string | null } => {
    if (!oauth.accepts(request.headers.authorization, 'Bearer')) {
      return error(401, 'Authentication credentials not found. This API supports OAuth 2.0 authentication', 'INVALID_AUTHENTICATION');
    }
    const failure = state.failNext.shift();
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
      return error(failure.status, failure.message ?? (failure.status === 429 ? 'You have reached your secondly limit.' : 'internal error'), failure.status === 429 ? 'RATE_LIMITS' : 'INTERNAL_ERROR', headers);
    }
    return { type: request.params.objectType === undefined ? null : typeOf(state, request.params.objectType) };
  };

  /** Runs `handler` for an admitted request whose object type exists. */
  const crm =
    (handler: (request: VendorRequest, type: string) => VendorReply) =>
    (request: VendorRequest): VendorReply => {
      const admitted = admit(request);
      if (!('type' in admitted)) return admitted;
      if (!admitted.type) return error(400, `Unable to infer object type from: ${request.params.objectType}`, 'VALIDATION_ERROR');
      return handler(request, admitted.type);
    };

  const namesFrom = (value: string | null) => (value ? value.split(',').filter(Boolean) : null);

  const server = await startVendorServer<HubSpotState>(
    {
      // The token endpoint lives on the API host: passed on to the authorization server as it was sent.
      [`POST ${HUBSPOT_OAUTH_PATHS.tokenPath}`]: async (request) => {
        const answer = await fetch(`${oauth.url}${HUBSPOT_OAUTH_PATHS.tokenPath}`, {
          method: 'POST',
          headers: { 'content-type': String(request.headers['content-type'] ?? '') },
          body: request.body,
        });
        return { status: answer.status, headers: { 'content-type': 'application/json' }, body: await answer.text() };
      },

      'GET /crm/v3/objects/:objectType': crm((request, type) => {
        const limit = Number(request.query.get('limit') ?? '10');
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) return error(400, 'limit must be between 1 and 100', 'VALIDATION_ERROR');
        const offset = Number(request.query.get('after') ?? '0');
        const live = state.records[type].filter((record) => !record.archived);
        const page = live.slice(offset, offset + limit).map((record) => shown(type, record, namesFrom(request.query.get('properties'))));
        const next = offset + limit < live.length ? { next: { after: String(offset + limit), link: `/crm/v3/objects/${type}?after=${offset + limit}` } } : undefined;
        return { body: { results: page, ...(next ? { paging: next } : {}) } };
      }),

      'GET /crm/v3/objects/:objectType/:id': crm((request, type) => {
        const record = findBy(type, request.query.get('idProperty') ?? 'hs_object_id', request.params.id);
        if (!record) return error(404, 'resource not found', 'OBJECT_NOT_FOUND');
        return { body: shown(type, record, namesFrom(request.query.get('properties'))) };
      }),

      'POST /crm/v3/objects/:objectType': crm((request, type) => {
        const { properties } = request.json<{ properties?: Record<string, string> }>();
        const invalid = invalidProperties(type, properties ?? {});
        if (invalid) return error(400, `Property values were not valid: ${invalid}`, 'VALIDATION_ERROR');
        const email = properties?.email;
        const existing = type === 'contacts' && email ? findBy(type, 'email', email) : undefined;
        if (existing) return error(409, `Contact already exists. Existing ID: ${existing.id}`, 'CONFLICT');
        return { status: 201, body: shown(type, create(type, properties ?? {}), Object.keys(properties ?? {}).concat('hs_object_id', createdOf(type), lastModifiedOf(type))) };
      }),

      'PATCH /crm/v3/objects/:objectType/:id': crm((request, type) => {
        const idProperty = request.query.get('idProperty');
        if (idProperty && !uniqueProperty(type, idProperty)) return error(400, `${idProperty} is not a unique identifier property`, 'VALIDATION_ERROR');
        const record = findBy(type, idProperty ?? 'hs_object_id', request.params.id);
        if (!record) return error(404, 'resource not found', 'OBJECT_NOT_FOUND');
        const { properties } = request.json<{ properties?: Record<string, string> }>();
        const invalid = invalidProperties(type, properties ?? {});
        if (invalid) return error(400, `Property values were not valid: ${invalid}`, 'VALIDATION_ERROR');
        return { body: shown(type, change(type, record, properties ?? {}), Object.keys(record.properties)) };
      }),

      'POST /crm/v3/objects/:objectType/search': crm((request, type) => {
        const body = request.json<{ filterGroups?: Array<{ filters?: Filter[] }>; sorts?: Array<{ propertyName: string; direction?: string }>; query?: string; properties?: string[]; limit?: number; after?: string }>();
        const limit = body.limit ?? 10;
        if (!Number.isInteger(limit) || limit < 1 || limit > 200) return error(400, 'limit must be between 1 and 200', 'VALIDATION_ERROR');
        const offset = body.after === undefined ? 0 : Number(body.after);
        if (!Number.isInteger(offset) || offset < 0) return error(400, `after "${body.after}" is not a valid paging cursor`, 'VALIDATION_ERROR');
        if (offset + limit > 10_000) return error(400, 'The search endpoints are limited to 10,000 total results for any given query', 'VALIDATION_ERROR');
        const groups = body.filterGroups ?? [];
        if (groups.length > 5 || groups.some((group) => (group.filters ?? []).length > 6)) return error(400, 'too many filter groups or filters', 'VALIDATION_ERROR');
        const query = body.query?.trim().toLowerCase();
        const searched = SEARCHABLE[type] ?? state.properties[type].map((definition) => definition.name);
        let found = state.records[type].filter(
          (record) =>
            !record.archived &&
            (groups.length === 0 || groups.some((group) => (group.filters ?? []).every((filter) => passes(record, filter)))) &&
            (!query || searched.some((name) => (record.properties[name] ?? '').toLowerCase().includes(query))),
        );
        const [sort] = body.sorts ?? [];
        found = [...found].sort((a, b) => {
          if (!sort) return Number(a.id) - Number(b.id);
          const key = (record: HubSpotRecord) => (sort.propertyName === 'hs_object_id' ? Number(record.id) : comparable(record.properties[sort.propertyName]));
          const order = key(a) - key(b) || Number(a.id) - Number(b.id);
          return sort.direction === 'DESCENDING' ? -order : order;
        });
        const page = found.slice(offset, offset + limit).map((record) => shown(type, record, body.properties?.length ? body.properties : null));
        return { body: { total: found.length, results: page, ...(offset + limit < found.length ? { paging: { next: { after: String(offset + limit) } } } : {}) } };
      }),

      'POST /crm/v3/objects/:objectType/batch/upsert': crm((request, type) => {
        const { inputs } = request.json<{ inputs?: Array<{ id?: string; idProperty?: string; properties?: Record<string, string> }> }>();
        if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > 100) return error(400, 'inputs must hold 1 to 100 records', 'VALIDATION_ERROR');
        const results = [];
        for (const input of inputs) {
          if (!input.idProperty || !input.id) return error(400, 'each input needs id and idProperty', 'VALIDATION_ERROR');
          if (!uniqueProperty(type, input.idProperty)) return error(400, `${input.idProperty} is not a unique identifier property`, 'VALIDATION_ERROR');
          const invalid = invalidProperties(type, input.properties ?? {});
          if (invalid) return error(400, `Property values were not valid: ${invalid}`, 'VALIDATION_ERROR');
          const existing = findBy(type, input.idProperty, input.id);
          const record = existing ? change(type, existing, input.properties ?? {}) : create(type, { ...input.properties, [input.idProperty]: input.id });
          results.push({ ...shown(type, record, Object.keys(record.properties)), new: !existing });
        }
        const at = new Date(state.now()).toISOString();
        return { body: { status: 'COMPLETE', results, requestedAt: at, startedAt: at, completedAt: at } };
      }),

      'GET /crm/v3/properties/:objectType': crm((_request, type) => ({ body: { results: state.properties[type] } })),

      'GET /crm/v3/schemas': (request) => {
        const admitted = admit(request);
        if (!('type' in admitted)) return admitted;
        if (!state.customScopeGranted) return error(403, 'This app hasn’t been granted all required scopes to make this call.', 'MISSING_SCOPES');
        return { body: { results: state.schemas } };
      },

      'GET /crm/v3/schemas/:objectType': crm((_request, type) => {
        if (!state.customScopeGranted) return error(403, 'This app hasn’t been granted all required scopes to make this call.', 'MISSING_SCOPES');
        const schema = state.schemas.find((candidate) => candidate.objectTypeId === type);
        return schema ? { body: schema } : error(404, 'resource not found', 'OBJECT_NOT_FOUND');
      }),
    },
    { state },
  );

  return Object.assign(server, {
    seed: (type: string, properties: Record<string, string>, at?: number) => create(typeOf(state, type)!, properties, at),
    touch(type: string, id: string, properties: Record<string, string>, at?: number) {
      const canonical = typeOf(state, type)!;
      const record = findBy(canonical, 'hs_object_id', id);
      if (!record) throw new Error(`no ${type} record ${id}`);
      return change(canonical, record, properties, at);
    },
  });
}
