import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';

/**
 * Schema building blocks every plugin shares, so envelopes and ids look the same
 * across the API and in the OpenAPI document.
 */

/** A uuid path parameter that names the resource kind it addresses (for the cross-tenant sweep). */
export const ResourceId = (kind: string, description?: string) =>
  Type.String({ format: 'uuid', 'x-resource': kind, ...(description ? { description } : {}) });

/** The kind of a path key that names something every tenant shares (an app of the flow catalog): the cross-tenant sweep skips it. */
export const SHARED_RESOURCE = 'shared';

/** A path parameter that is not a tenant's resource but a key every tenant shares, e.g. a flow app's uid. */
export const SharedKey = (description?: string) => Type.String({ 'x-resource': SHARED_RESOURCE, ...(description ? { description } : {}) });

export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', ...options });

/**
 * Names a response schema that many operations share (`Agent`): the OpenAPI document
 * lists it once under `components.schemas` and refers to it, instead of repeating it.
 */
export const Component = <T extends TSchema>(name: string, schema: T) => ({ ...schema, 'x-component': name }) as T;

/** Server-owned members: shown in responses, ignored when a client sends them back. */
export const ReadOnly = <T extends TSchema>(schema: T) => ({ ...schema, readOnly: true }) as T;

export const Timestamp = () => Type.String({ format: 'date-time' });

/** `{data: resource}` */
export const DataEnvelope = <T extends TSchema>(resource: T) => Type.Object({ data: resource });

/** `{success, message, data}` */
export const SuccessEnvelope = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Boolean(), message: Type.String(), data });

export const Pagination = Type.Object(
  {
    current_page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    last_page: Type.Integer(),
    from: Type.Union([Type.Integer(), Type.Null()]),
    to: Type.Union([Type.Integer(), Type.Null()]),
    has_more: Type.Boolean(),
  },
  { $id: undefined },
);

/** `{success: true, data: {items, pagination}}` */
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Boolean(), data: Type.Object({ items: Type.Array(item), pagination: Pagination }) });

export const DeletedEnvelope = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Object({ deleted: Type.Boolean() }),
});

export const PageQuery = <P extends TProperties = {}>(extra: P = {} as P): TObject<P & typeof pageProperties> =>
  Type.Object({ ...pageProperties, ...extra }, { additionalProperties: false }) as any;

const pageProperties = {
  // Bounded: the offset it makes must stay a number PostgreSQL takes (1e308 made `offset Infinity`).
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1 (at most 1,000,000)' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (at most 100)' }),
};

export interface PageRequest {
  page: number;
  per_page: number;
}

/** The `limit` and `offset` of a page, for a query that fetches just that page. */
export const pageWindow = ({ page, per_page }: PageRequest) => ({ limit: per_page, offset: (page - 1) * per_page });

/** Builds the list envelope of decisions.md from one page of items and the total. */
export function pageOf<T>(items: T[], total: number, { page, per_page }: PageRequest) {
  const lastPage = Math.max(1, Math.ceil(total / per_page));
  const from = items.length > 0 ? (page - 1) * per_page + 1 : null;
  return {
    success: true,
    data: {
      items,
      pagination: {
        current_page: page,
        per_page,
        total,
        last_page: lastPage,
        from,
        to: from === null ? null : from + items.length - 1,
        has_more: page < lastPage,
      },
    },
  };
}

export const deleted = (message: string) => ({ success: true, message, data: { deleted: true } });
