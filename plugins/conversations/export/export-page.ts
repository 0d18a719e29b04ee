import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { MessageJson } from '../views';
import type { CursorPosition, ExportFilters } from './export-cursor';
import { isoFromUtcTimestamp } from './export-instant';

/**
 * One page of the message export in one statement, on the keyset index
 * `(tenant_uuid, created_at, uuid)` (or `(tenant_uuid, channel, created_at, uuid)`
 * with a channel filter): no offset, so every page costs the same however deep it is,
 * and rows added meanwhile cannot shift it.
 *
 * The export is a hot path (a client may read millions of rows), so a page costs as
 * little as the kernel allows (bench/export.ts measures it against a raw keyset SELECT):
 * - the rows come back from PostgreSQL named and shaped as the API returns them,
 *   `content` already masked by the policy, with no entity hydration; the only work per
 *   row in JavaScript is formatting `created_at` (cheaper than PostgreSQL's to_char);
 * - the policy is read by the same statement (uncorrelated subqueries, evaluated once
 *   per statement), so a page is one round trip;
 * - the statement is a named prepared statement on the ORM's own pool, not a query
 *   through the ORM: the ORM inlines values into the SQL text, which PostgreSQL parses
 *   and plans again for every page (measured: about 15% of the export's rate). This is
 *   only right because the export is a GET, which runs outside any transaction.
 */

const POLICY = `(select s."policy" from "message_export_settings" s where s."tenant_uuid" = $1)`;

// `created_at at time zone 'UTC'` is a plain timestamp whose text does not depend on
// the session's TimeZone; it is turned into ISO 8601 below (export-instant.ts).
const COLUMNS =
  `m."uuid" as "message_uuid", m."conversation_uuid", m."session_uuid", m."contact_uuid", m."agent_uuid", ` +
  `m."channel", m."channel_label", m."sender", m."message_type", ` +
  `case when ${POLICY} = 'masked' then '***' else m."content" end as "content", ` +
  `m."created_at" at time zone 'UTC' as "created_at"`;

const NOT_DISABLED = `not exists (select 1 from "message_export_settings" s where s."tenant_uuid" = $1 and s."policy" = 'disabled')`;

export interface PageRequest {
  filters: ExportFilters;
  /** The position of the previous page's last row; null for the first page. */
  after: CursorPosition | null;
  limit: number;
}

/** `disabled`: the workspace's policy forbids the export. Otherwise the rows, in order. */
export type PageResult = { disabled: true } | { disabled: false; rows: MessageJson[]; hasMore: boolean };

interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * The statement for the filters present: each combination has its own text (and
 * prepared statement name), with only the conditions it needs, so the planner sees
 * exactly the index range to scan (no `$n is null or ...`).
 */
function pageStatement({ filters, after, limit }: PageRequest): Statement {
  // $1 the tenant, $2 the row count: one more than asked tells whether another page follows.
  const values: unknown[] = [filters.tenantUuid, limit + 1];
  const conditions = [`m."tenant_uuid" = $1`];
  const tags: string[] = [];
  const add = (tag: string, condition: (first: number) => string, ...params: unknown[]) => {
    conditions.push(condition(values.length + 1));
    values.push(...params);
    tags.push(tag);
  };
  if (filters.channel !== null) add('channel', (n) => `m."channel" = $${n}`, filters.channel);
  if (filters.from !== null) add('from', (n) => `m."created_at" >= $${n}::timestamptz`, filters.from);
  if (filters.to !== null) add('to', (n) => `m."created_at" < $${n}::timestamptz`, filters.to);
  if (after !== null) add('after', (n) => `(m."created_at", m."uuid") > ($${n}::timestamptz, $${n + 1}::uuid)`, after.createdAt, after.uuid);
  conditions.push(NOT_DISABLED);
  return {
    name: ['conversations.export', ...tags].join('.'),
    text: `select ${COLUMNS} from "conversation_messages" m where ${conditions.join(' and ')} order by m."created_at", m."uuid" limit $2`,
    values,
  };
}

export async function readPage(em: EntityManager, request: PageRequest): Promise<PageResult> {
  const pool: Pool = await em.getConnection().getNativeClient();
  const { rows } = await pool.query<MessageJson>(pageStatement(request));
  if (rows.length === 0 && (await isDisabled(pool, request.filters.tenantUuid))) return { disabled: true };
  const hasMore = rows.length > request.limit;
  if (hasMore) rows.length = request.limit;
  for (const row of rows) row.created_at = isoFromUtcTimestamp(row.created_at);
  return { disabled: false, rows, hasMore };
}

/** Asked only when a page came back empty: an empty page and a disabled export look alike. */
async function isDisabled(pool: Pool, tenantUuid: string): Promise<boolean> {
  const { rows } = await pool.query({
    name: 'conversations.export.disabled',
    text: `select 1 from "message_export_settings" where "tenant_uuid" = $1 and "policy" = 'disabled'`,
    values: [tenantUuid],
  });
  return rows.length > 0;
}
