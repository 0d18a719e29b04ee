import type { EntityManager } from '@mikro-orm/postgresql';
import { escapeLiteral, type Pool } from 'pg';
import { copyOut, type CopyOutReader } from './copy-out';
import type { CursorPosition, ExportFilters } from './export-cursor';

/**
 * One page of the message export in one statement, on the keyset index
 * `(tenant_uuid, created_at, uuid)` (or `(tenant_uuid, channel, created_at, uuid)`
 * with a channel filter): no offset, so every page costs the same however deep it is,
 * and rows added meanwhile cannot shift it.
 *
 * The export is a hot path (a client may read millions of rows), so a page costs as
 * little as the kernel allows (bench/export.ts measures it against a raw keyset SELECT):
 * - the page is read with `COPY (select ...) TO STDOUT`: PostgreSQL sends the rows as
 *   text lines, which export-page-json.ts turns into the page's JSON byte by byte as
 *   they arrive, with no JavaScript string or object per value. Reading the rows as a
 *   query through `pg` (a string per value, an object per row), then JSON.stringify:
 *   the export ran at 0.36-0.43 of bench/export's raw SELECT; this way, at 0.52-0.63.
 *   Building the JSON in PostgreSQL (json_build_object, row_to_json, concatenation)
 *   measured slower than either, about 10 µs a row;
 * - COPY takes no bind parameters, so the values are literals in the statement, which
 *   PostgreSQL plans for every page (a fraction of a millisecond, included in the
 *   figures above). Every value was checked before it gets here (a uuid, a canonical
 *   instant, a channel of the enum) and is quoted with `escapeLiteral` anyway;
 * - `content` is masked by the policy in the statement, and the policy is read by it
 *   (uncorrelated subqueries, evaluated once per statement), so a page is one round trip;
 * - it runs on a connection of the ORM's pool, outside any transaction: the export is a
 *   GET, whose EntityManager never opened one.
 */

const CREATED_AT_UTC = `m."created_at" at time zone 'UTC'`;

/**
 * The columns in export-page-json.ts's order. `created_at at time zone 'UTC'` is a
 * plain timestamp whose text does not depend on the session's TimeZone.
 */
function columns(tenant: string): string {
  const policy = `(select s."policy" from "message_export_settings" s where s."tenant_uuid" = ${tenant})`;
  return (
    `m."uuid", m."conversation_uuid", m."session_uuid", m."contact_uuid", m."agent_uuid", ` +
    `m."channel", m."channel_label", m."sender", m."message_type", ` +
    `case when ${policy} = 'masked' then '***' else m."content" end, ${CREATED_AT_UTC}`
  );
}

export interface PageRequest {
  filters: ExportFilters;
  /** The position of the previous page's last row; null for the first page. */
  after: CursorPosition | null;
  limit: number;
}

/**
 * `disabled`: the workspace's policy forbids the export. Otherwise what the reader made
 * of up to `limit + 1` rows in COPY's text format, in order (one more than asked tells
 * whether another page follows).
 */
export type PageResult<T> = { disabled: true } | { disabled: false; page: T };

/** The statement for the filters present, with only the conditions it needs, so the planner sees exactly the index range to scan. */
export function pageStatement({ filters, after, limit }: PageRequest): string {
  const tenant = escapeLiteral(filters.tenantUuid);
  const conditions = [`m."tenant_uuid" = ${tenant}::uuid`];
  if (filters.channel !== null) conditions.push(`m."channel" = ${escapeLiteral(filters.channel)}`);
  if (filters.from !== null) conditions.push(`m."created_at" >= ${escapeLiteral(filters.from)}::timestamptz`);
  if (filters.to !== null) conditions.push(`m."created_at" < ${escapeLiteral(filters.to)}::timestamptz`);
  if (after !== null) conditions.push(`(m."created_at", m."uuid") > (${escapeLiteral(after.createdAt)}::timestamptz, ${escapeLiteral(after.uuid)}::uuid)`);
  conditions.push(`not exists (select 1 from "message_export_settings" s where s."tenant_uuid" = ${tenant}::uuid and s."policy" = 'disabled')`);
  const rowCount = Math.trunc(limit) + 1;
  return `copy (select ${columns(`${tenant}::uuid`)} from "conversation_messages" m where ${conditions.join(' and ')} order by m."created_at", m."uuid" limit ${rowCount}) to stdout`;
}

/** The page's rows go to `reader` as PostgreSQL sends them (copy-out.ts). */
export async function readPage<T>(em: EntityManager, request: PageRequest, reader: CopyOutReader<T>): Promise<PageResult<T>> {
  const pool: Pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  let rows = 0;
  let page: T;
  try {
    page = await copyOut(client, pageStatement(request), {
      row: (bytes) => {
        rows++;
        reader.row(bytes);
      },
      end: () => reader.end(),
      abandon: () => reader.abandon?.(),
    });
  } catch (error) {
    // A COPY that failed midway may leave the connection in any state: do not reuse it.
    client.release(error as Error);
    throw error;
  }
  client.release();
  if (rows === 0 && (await isDisabled(pool, request.filters.tenantUuid))) return { disabled: true };
  return { disabled: false, page };
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
