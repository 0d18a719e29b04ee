import { Component, ReadOnly, SuccessEnvelope, Timestamp, Type } from '../../../core';
import { CHANNELS, type Channel } from '../channels';
import { EXPORT_POLICIES, type ExportPolicy } from '../entities/message-export-setting.entity';
import { ExportMessageSchema } from '../views';

const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

/** Spec default, capped by the configured maximum when that is lower. */
export const DEFAULT_LIMIT = 500;

export const exportQuery = (maxLimit: number) =>
  Type.Object(
    {
      channel: Type.Optional(OneOf<Channel>(CHANNELS, `Only messages of this channel: ${CHANNELS.join(', ')}`)),
      from: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'Messages created at or after this instant (inclusive). ISO 8601 date-time with a time zone, e.g. `2024-05-01T00:00:00Z`; fractions down to the microsecond count.',
        }),
      ),
      to: Type.Optional(Type.String({ format: 'date-time', description: 'Messages created before this instant (exclusive); later than `from`. Same format as `from`.' })),
      limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: Math.min(DEFAULT_LIMIT, maxLimit), description: `Rows per page, 1 to ${maxLimit} (default ${Math.min(DEFAULT_LIMIT, maxLimit)})` }),
      cursor: Type.Optional(
        Type.String({
          description: 'The previous page’s `pagination.next_cursor`, to read the page after it. Valid only with the same `channel`, `from` and `to`; `limit` may change.',
        }),
      ),
    },
    { additionalProperties: false },
  );

export const ExportPageSchema = Type.Object({
  meta: Type.Object({}, { description: 'Reserved; empty' }),
  messages: Type.Array(ExportMessageSchema, { description: 'Sorted by `created_at`, then `message_uuid`' }),
  pagination: Type.Object({
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page' }),
    has_more: Type.Boolean(),
    limit: Type.Integer({ description: 'The page size used' }),
  }),
});

const PolicySchema = OneOf<ExportPolicy>(EXPORT_POLICIES, '`enabled`: the export returns messages as stored; `masked`: every `content` is `***`; `disabled`: the export answers 403');

/** The workspace's message export policy, as GET and PUT return it. */
export const ExportPolicySchema = Component(
  'MessageExportPolicy',
  Type.Object({
    policy: PolicySchema,
    updated_at: ReadOnly(Type.Union([Timestamp(), Type.Null()], { description: 'When it was last saved; null while the default (`enabled`) applies' })),
  }),
);

export const ExportPolicyEnvelope = SuccessEnvelope(ExportPolicySchema);

/** The whole policy; `updated_at`, read-only, is ignored so that a client can send back what it read. */
export const ExportPolicyWrite = Type.Object({ ...ExportPolicySchema.properties }, { additionalProperties: false, examples: [{ policy: 'masked' }] });
