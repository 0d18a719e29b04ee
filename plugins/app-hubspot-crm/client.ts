import { expectOk, type ConnectionHttp } from '../flows';

/** The vendor's name as users know it, in every error message. */
export const HUBSPOT = 'HubSpot';

/** A CRM record as HubSpot's objects and search endpoints answer it. */
export interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt?: string;
  updatedAt?: string;
  archived?: boolean;
  /** Batch upsert only: whether the record was created by this call. */
  new?: boolean;
}

/** A page of records: `paging.next.after` is HubSpot's cursor for the next one, absent on the last page. */
export interface HubSpotPage {
  total?: number;
  results: HubSpotObject[];
  paging?: { next?: { after?: string; link?: string } };
}

/** A property definition (`GET /crm/v3/properties/{objectType}`). */
export interface HubSpotProperty {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  description?: string;
  groupName?: string;
  hasUniqueValue?: boolean;
  hidden?: boolean;
  calculated?: boolean;
  modificationMetadata?: { readOnlyValue?: boolean };
}

/** A custom object's schema (`GET /crm/v3/schemas`): `objectTypeId` (`2-123456`) names it in object URLs. */
export interface HubSpotSchema {
  id: string;
  objectTypeId?: string;
  name: string;
  fullyQualifiedName?: string;
  labels?: { singular?: string; plural?: string };
  primaryDisplayProperty?: string;
}

export interface SearchFilter {
  propertyName: string;
  operator: 'EQ' | 'NEQ' | 'LT' | 'LTE' | 'GT' | 'GTE' | 'HAS_PROPERTY' | 'NOT_HAS_PROPERTY' | 'CONTAINS_TOKEN' | 'NOT_CONTAINS_TOKEN';
  value?: string;
}

/** The body of `POST /crm/v3/objects/{objectType}/search`: filter groups are ORed, the filters of a group ANDed. */
export interface SearchRequest {
  filterGroups?: Array<{ filters: SearchFilter[] }>;
  sorts?: Array<{ propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }>;
  query?: string;
  properties?: string[];
  limit: number;
  after?: string;
}

/** Most records a search page holds (HubSpot's own limit). */
export const SEARCH_PAGE_MAX = 200;

const segment = (value: string) => encodeURIComponent(value);

/**
 * The HubSpot CRM v3 API as the app uses it. Every call goes through `http` (the
 * connection's access token added, kept fresh) and every answer through `expectOk`, so a
 * refusal or failure is a VendorError saying what was tried.
 */
export function hubspotClient(http: ConnectionHttp, baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '');
  const call = async <T>(what: string, path: string, options: Parameters<ConnectionHttp['request']>[1] = {}): Promise<T> =>
    expectOk(HUBSPOT, await http.request(`${base}${path}`, { ...options, headers: { accept: 'application/json', ...options.headers } }), what).json<T>();
  const objects = (objectType: string) => `/crm/v3/objects/${segment(objectType)}`;

  return {
    /** Custom object schemas; a 403 (the optional custom-object scope was not granted) is for the caller to judge. */
    schemas: () => http.request(`${base}/crm/v3/schemas`, { headers: { accept: 'application/json' } }),
    properties: (objectType: string) => call<{ results: HubSpotProperty[] }>(`list the properties of ${objectType}`, `/crm/v3/properties/${segment(objectType)}`),
    search: (objectType: string, request: SearchRequest) => call<HubSpotPage>(`search ${objectType}`, `${objects(objectType)}/search`, { method: 'POST', body: { ...request } }),
    create: (objectType: string, properties: Record<string, unknown>, idempotencyKey: string) =>
      call<HubSpotObject>(`create a record of ${objectType}`, objects(objectType), { method: 'POST', body: { properties }, idempotencyKey }),
    /** `idProperty` names a unique property whose value `id` is, instead of the record id. */
    update: (objectType: string, id: string, properties: Record<string, unknown>, idProperty?: string) =>
      call<HubSpotObject>(`update the record ${id} of ${objectType}`, `${objects(objectType)}/${segment(id)}`, {
        method: 'PATCH',
        body: { properties },
        ...(idProperty ? { query: { idProperty } } : {}),
      }),
    upsert: (objectType: string, input: { idProperty: string; id: string; properties: Record<string, unknown> }, idempotencyKey: string) =>
      call<{ status?: string; results?: HubSpotObject[]; errors?: Array<{ message?: string }> }>(`upsert a record of ${objectType}`, `${objects(objectType)}/batch/upsert`, {
        method: 'POST',
        body: { inputs: [input] },
        idempotencyKey,
      }),
    schema: (objectType: string) => call<HubSpotSchema>(`read the schema of ${objectType}`, `/crm/v3/schemas/${segment(objectType)}`),
  };
}

export type HubSpotClient = ReturnType<typeof hubspotClient>;

/** A record as the app outputs it: its id, its properties, and HubSpot's timestamps. */
export function recordJson(object: HubSpotObject): Record<string, unknown> {
  return {
    ...object.properties,
    id: object.id,
    createdAt: object.createdAt ?? null,
    updatedAt: object.updatedAt ?? null,
    archived: object.archived ?? false,
  };
}
