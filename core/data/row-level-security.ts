import type { MikroORM } from '@mikro-orm/postgresql';
import type { MetadataStorage } from '@mikro-orm/core';
import { currentTenant } from '../context/request-context';
import { isTenantNeutral } from './prepared-statements';
import { isTenantScoped } from './tenant-scoped-entity';

/**
 * Row-level security, the second wall behind the tenant filter (docs/architecture.md,
 * "Tenant isolation"). Every table of a tenant-scoped entity gets a policy that lets a
 * statement see and write only the rows of the tenant named by the `app.tenant_id`
 * setting, or every row when the setting is empty (deliberately cross-tenant work: the
 * bus relay, admin routes, the deletion job, migrations). This file keeps that setting
 * equal to the tenant of the work in progress on every pooled connection.
 */

export const TENANT_SETTING = 'app.tenant_id';
export const POLICY_NAME = 'tenant_isolation';

/**
 * Empty or unset: cross-tenant work, every row (tenant_uuid is never null on these
 * tables); otherwise that tenant's rows only. Not an OR of the two cases: PostgreSQL
 * may evaluate either side first, and ''::uuid is an error. The setting is read in a
 * subquery, which PostgreSQL evaluates once per statement (an InitPlan) rather than
 * once per row: measured on 300,000 rows, 0.14 us a row against 0.7 us.
 */
// Written as PostgreSQL prints it back (pg_policies.qual), so that MikroORM's schema diff finds it unchanged.
export const POLICY_CONDITION = `(tenant_uuid = COALESCE(( SELECT (NULLIF(current_setting('${TENANT_SETTING}'::text, true), ''::text))::uuid AS "nullif"), tenant_uuid))`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The statement that sets the tenant, with the value inlined so that it can share a
 * round trip with BEGIN or a savepoint (a statement with parameters cannot). Only a
 * UUID or nothing is ever inlined.
 */
export function setTenantSql(tenantUuid: string | undefined, local: boolean): string {
  const value = tenantUuid ?? '';
  if (value !== '' && !UUID.test(value)) throw new Error(`not a tenant uuid: ${JSON.stringify(value)}`);
  return `select set_config('${TENANT_SETTING}', '${value}', ${local})`;
}

/** Whether an ORM made by createOrm runs with row-level security (keyed by its Configuration, shared by every fork). */
const enabledFor = new WeakMap<object, boolean>();

export function recordRowLevelSecurity(config: object, enabled: boolean): void {
  enabledFor.set(config, enabled);
}

export function rowLevelSecurityOf(em: { config: object }): boolean {
  return enabledFor.get(em.config) ?? false;
}

/** The part of a pooled `pg` client this needs. */
interface PgClient {
  query(...args: any[]): any;
  /** pg's transaction status from the last ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' failed one; null before the first. */
  _txStatus?: string | null;
}

/** The session-level value this connection has (set on it by a statement outside a transaction); '' at first. */
const sessionTenant = new WeakMap<PgClient, string>();
/** After a failed set_config: matches no tenant, so the next statement sets the value again. */
const UNKNOWN = '?';

const BEGIN = /^\s*(begin|start transaction)\b/i;

const TENANT_OF = Symbol('tenant of a pooled statement');

interface TaggedText {
  text: string;
  [TENANT_OF]: string;
}

/**
 * The text of a statement for `pool.query`, carrying the current tenant with it: pg-pool
 * calls `client.query` from the callback of its `connect`, which, when every connection
 * was busy, runs in the async context of whichever work released one, not this work's.
 */
export function withCurrentTenant(text: string): TaggedText {
  return { text, [TENANT_OF]: currentTenant()?.uuid ?? '' };
}

/**
 * Keeps a pooled client's `app.tenant_id` equal to the current work's tenant (none for
 * cross-tenant work), at no round trip while it already is:
 *
 * - BEGIN from a tenant's work carries `set_config(..., true)` in the same simple-protocol
 *   query, so the value lasts exactly the transaction (request transactions, a bus
 *   message that arrives alone). Inside a transaction nothing is touched: its value was
 *   set at BEGIN, or by the bus per handler (delivery.ts).
 * - A statement outside a transaction (a GET's reads, boundQuery) runs on whichever
 *   connection the pool hands out: the value is set at session level on it first (one
 *   round trip), only when the tenant differs from what that connection was last set to.
 * - A statement declared `tenantNeutral` (prepared-statements.ts: the bus's, on tables
 *   without a policy) runs under whatever the connection has, so the relay's statements
 *   between a tenant's do not switch it back and forth.
 */
export function useTenantSetting(client: PgClient): void {
  sessionTenant.set(client, '');
  const query = client.query;
  client.query = function (this: PgClient, ...args: any[]) {
    const [config] = args;
    if (typeof config === 'object' && config !== null && TENANT_OF in config) {
      args[0] = (config as TaggedText).text;
      return tenantQuery(this, query, (config as TaggedText)[TENANT_OF], args);
    }
    return tenantQuery(this, query, currentTenant()?.uuid ?? '', args);
  };
}

function tenantQuery(client: PgClient, query: (...args: any[]) => any, wanted: string, args: any[]): any {
  const idle = client._txStatus == null || client._txStatus === 'I';
  // A statement on tables without a policy (the bus's) runs under whatever the connection has.
  if (idle && wanted !== (sessionTenant.get(client) ?? '') && !(typeof args[0] === 'string' && isTenantNeutral(args[0]))) {
    const [text, values] = args;
    // A BEGIN without parameters goes by the simple protocol, where one query may hold two statements.
    if (typeof text === 'string' && BEGIN.test(text) && (args.length === 1 || (Array.isArray(values) && values.length === 0))) {
      args[0] = `${text}; ${setTenantSql(wanted, true)}`;
      if (args.length === 1) args.push([]);
    } else {
      sessionTenant.set(client, wanted);
      const set: Promise<unknown> = query.call(client, setTenantSql(wanted, false));
      // The statement goes once the setting is in place, in the calling style it came in.
      const callback = args.findLast((arg) => typeof arg === 'function');
      const failed = (error: unknown) => {
        sessionTenant.set(client, UNKNOWN);
        throw error;
      };
      if (callback) {
        set.then(() => query.apply(client, args)).catch(() => {});
        set.catch(failed).catch(callback);
        return undefined;
      }
      if (typeof text === 'string' || (typeof text === 'object' && text !== null && typeof text.submit !== 'function')) {
        return set.then(() => query.apply(client, args), failed);
      }
      // A submittable (a cursor) is returned at once: queued behind the setting, which pg sends first.
      set.catch(() => sessionTenant.set(client, UNKNOWN));
    }
  }
  return query.apply(client, args);
}

/**
 * Declares the policy in each tenant-scoped entity's metadata too (MikroORM 7 knows
 * policies), so that the schema generator and its diff (test/core/data/schema.test.ts)
 * describe what ensureRowLevelSecurity puts in place; with row-level security off, the
 * policy stays declared but disabled, as ensureRowLevelSecurity leaves it.
 */
export function declareTenantPolicies(storage: MetadataStorage, enabled: boolean): void {
  for (const meta of storage.getAll().values()) {
    if (meta.abstract || meta.embeddable || !meta.class || !isTenantScoped(meta.class)) continue;
    meta.policies = [{ name: POLICY_NAME, command: 'all', using: POLICY_CONDITION, check: POLICY_CONDITION }];
    meta.rowLevelSecurity = enabled ? 'force' : false;
  }
}

export interface TenantTable {
  entity: string;
  schema: string;
  table: string;
}

/** The table of every tenant-scoped entity the ORM knows (kernel's and plugins'). */
export function tenantTables(orm: MikroORM): TenantTable[] {
  const tables = new Map<string, TenantTable>();
  for (const meta of orm.getMetadata().getAll().values()) {
    if (meta.abstract || meta.embeddable || !meta.class || !isTenantScoped(meta.class) || !meta.tableName) continue;
    const schema = meta.schema && meta.schema !== '*' ? meta.schema : 'public';
    tables.set(`${schema}.${meta.tableName}`, { entity: meta.className, schema, table: meta.tableName });
  }
  return [...tables.values()];
}

/**
 * Run after every migration (kernel's and plugins'): each tenant-scoped table gets
 * ENABLE and FORCE ROW LEVEL SECURITY (FORCE: the policy holds for the table's owner
 * too, which the application role may be) and the tenant policy, when missing. With
 * `enabled` false (DATABASE_ROW_LEVEL_SECURITY=false) row-level security is turned off
 * on them instead. Idempotent: a boot that finds everything in place sends no DDL.
 * Returns the tables it changed.
 */
export async function ensureRowLevelSecurity(orm: MikroORM, enabled: boolean): Promise<string[]> {
  const tables = tenantTables(orm);
  if (tables.length === 0) return [];
  const connection = orm.em.fork().getConnection();
  const rows: { schema: string; table: string; enabled: boolean; forced: boolean; policy: boolean }[] = await connection.execute(
    `select n.nspname as schema, c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced, ` +
      `exists (select 1 from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname and p.policyname = ?) as policy ` +
      `from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind in ('r', 'p') and (n.nspname || '.' || c.relname) = any(?::text[])`,
    [POLICY_NAME, `{${tables.map((t) => `"${t.schema}.${t.table}"`).join(',')}}`],
  );
  const state = new Map(rows.map((row) => [`${row.schema}.${row.table}`, row]));
  const changed: string[] = [];
  for (const { schema, table } of tables) {
    const found = state.get(`${schema}.${table}`);
    if (!found) continue; // not created (yet): a migration not run, or an entity without a table
    const name = `"${schema}"."${table}"`;
    const statements: string[] = [];
    if (enabled) {
      if (!found.policy) statements.push(`create policy ${POLICY_NAME} on ${name} using (${POLICY_CONDITION}) with check (${POLICY_CONDITION})`);
      if (!found.enabled) statements.push(`alter table ${name} enable row level security`);
      if (!found.forced) statements.push(`alter table ${name} force row level security`);
    } else {
      if (found.enabled) statements.push(`alter table ${name} disable row level security`);
      if (found.forced) statements.push(`alter table ${name} no force row level security`);
    }
    if (statements.length === 0) continue;
    await connection.execute(statements.join('; '), [], 'run');
    changed.push(`${schema}.${table}`);
  }
  return changed;
}
