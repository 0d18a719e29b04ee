import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { BusService } from '../bus/bus-types';
import type { Logger } from '../logging/logger';
import { TenantDeletion } from './tenant-deletion.entity';

/** The message that starts (or, redelivered, resumes) a deletion; published without a tenant. */
export const TENANT_DELETION_TOPIC = 'core.tenant.deletion';
export interface TenantDeletionMessage {
  deletion_uuid: string;
  tenant_uuid: string;
}

/** Rows deleted per transaction: each batch holds its row locks briefly, where one cascade would hold them all until the end. */
export const DELETION_BATCH_ROWS = 5000;

/** Tables that carry a tenant_uuid but are not the tenant's data. */
const NOT_TENANT_DATA = new Set(['tenants', 'tenant_deletions']);

/**
 * Deletes a tenant's data in the background, a batch at a time, then the tenant row
 * last (its cascade finds little left). It runs as the `prepare` of a kernel bus
 * consumer, so outside the message's transaction (which would otherwise stay open for
 * the whole deletion); the handler only records that it is done, together with the
 * bus's record that the message was handled. A process that dies mid-way has the
 * message delivered again, and the job carries on from what is left: every step is
 * a delete of what remains. A failing attempt is retried by the bus with backoff.
 */
export class TenantDeletionJob {
  private tables?: Promise<string[]>;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    private readonly batchRows = DELETION_BATCH_ROWS,
  ) {}

  register(bus: BusService): void {
    bus.consume<TenantDeletionMessage, boolean>(
      {
        name: 'tenant-deletion',
        topics: [TENANT_DELETION_TOPIC],
        retry: { attempts: 10, backoff: { initialMs: 5_000, maxMs: 300_000 } },
        prepare: (message) => this.run(message.payload),
      },
      async (message, { em, prepared }) => {
        if (prepared) await markDone(em, message.payload.deletion_uuid);
      },
    );
  }

  /**
   * The whole deletion in this process (the CLI's `tenant delete --wait`, which may run
   * without a worker). Should a worker take up the job's message meanwhile, both delete
   * what is left, and whichever finishes last finds nothing to do.
   */
  async runNow(message: TenantDeletionMessage): Promise<void> {
    if (await this.run(message)) await markDone(this.orm.em.fork(), message.deletion_uuid);
  }

  /** Deletes what is left of the tenant; false when the deletion is done already (or unknown). */
  async run({ deletion_uuid: deletionUuid, tenant_uuid: tenantUuid }: TenantDeletionMessage): Promise<boolean> {
    const em = this.orm.em.fork();
    // Only a deletion the admin API or the CLI recorded, for this very tenant: a message alone deletes nothing.
    const started = await em
      .getConnection()
      .execute<{ affectedRows: number }>(
        "update tenant_deletions set status = 'running', error = null, started_at = coalesce(started_at, clock_timestamp()) where uuid = ? and tenant_uuid = ? and status <> 'done'",
        [deletionUuid, tenantUuid],
        'run',
      );
    if (started.affectedRows === 0) return false;
    try {
      for (const table of await this.tablesInOrder(em)) {
        let deleted: number;
        do deleted = await this.deleteBatch(em, table, tenantUuid, deletionUuid);
        while (deleted === this.batchRows);
      }
      // Last: whatever is left (rows of tables no batch knew of) goes with it through the cascades.
      await em.getConnection().execute('delete from tenants where uuid = ?', [tenantUuid], 'run');
      this.logger.info('tenant deleted', { tenant_uuid: tenantUuid, deletion_uuid: deletionUuid });
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await em.nativeUpdate(TenantDeletion, { uuid: deletionUuid }, { status: 'failed', error: message }).catch(() => {});
      throw error;
    }
  }

  /** One batch in a transaction of its own, counted in the deletion's record by the same statement. */
  private async deleteBatch(em: EntityManager, table: string, tenantUuid: string, deletionUuid: string): Promise<number> {
    // By ctid: found and deleted by physical address, whatever the table's key.
    const rows = await em.getConnection().execute<{ n: number }[]>(
      `with gone as (delete from ${table} where ctid = any(array(select ctid from ${table} where tenant_uuid = ? limit ?)) returning 1), ` +
        'counted as (select count(*)::int as n from gone), ' +
        'recorded as (update tenant_deletions set deleted_rows = deleted_rows + (select n from counted) where uuid = ?) ' +
        'select n from counted',
      [tenantUuid, this.batchRows, deletionUuid],
      'all',
    );
    return rows[0]?.n ?? 0;
  }

  /** The tables holding tenant rows, children before the tables they reference (quoted, schema-qualified). */
  private tablesInOrder(em: EntityManager): Promise<string[]> {
    this.tables ??= tenantTablesInOrder(em).catch((error) => {
      this.tables = undefined;
      throw error;
    });
    return this.tables;
  }
}

/**
 * The tables of every entity with a tenant_uuid column (TenantScoped entities, tokens,
 * LLM usage) and the other tables with one that no entity maps (the outbox, dead
 * letters, idempotency keys), as the database has them (a table that is not there, a
 * migration not applied, is left to the final cascade); ordered by the database's
 * foreign keys, so that a table is emptied before the tables it references and
 * deleting a parent row cascades to nothing. Tables in a cycle keep their cascades.
 */
export async function tenantTablesInOrder(em: EntityManager): Promise<string[]> {
  const connection = em.getConnection();
  // The entities' own schemas, should one live outside the search path.
  const schemas = new Set<string>();
  for (const meta of em.getMetadata()) {
    if (meta.abstract || meta.embeddable || meta.virtual || !meta.tableName || !meta.schema) continue;
    if (Object.values(meta.properties).some((prop) => prop.fieldNames?.includes('tenant_uuid'))) schemas.add(meta.schema);
  }
  const columns = await connection.execute<{ schema: string; name: string }[]>(
    `select c.table_schema as schema, c.table_name as name from information_schema.columns c ` +
      `join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE' ` +
      `where c.column_name = 'tenant_uuid' and (c.table_schema = any(current_schemas(false)) or c.table_schema = any(?::text[]))`,
    [`{${[...schemas].map((schema) => `"${schema.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`],
  );
  const tables = new Map<string, { schema: string; name: string }>();
  for (const { schema, name } of columns) {
    if (NOT_TENANT_DATA.has(name)) continue;
    tables.set(`${schema}.${name}`, { schema, name });
  }

  const references = await connection.execute<{ child: string; parent: string }[]>(
    `select cn.nspname || '.' || c.relname as child, pn.nspname || '.' || p.relname as parent from pg_constraint k ` +
      `join pg_class c on c.oid = k.conrelid join pg_namespace cn on cn.oid = c.relnamespace ` +
      `join pg_class p on p.oid = k.confrelid join pg_namespace pn on pn.oid = p.relnamespace where k.contype = 'f'`,
  );
  // parent -> the children that reference it (other tables of the set)
  const childrenOf = new Map<string, Set<string>>();
  for (const { child, parent } of references) {
    if (child === parent || !tables.has(child) || !tables.has(parent)) continue;
    if (!childrenOf.has(parent)) childrenOf.set(parent, new Set());
    childrenOf.get(parent)!.add(child);
  }
  const ordered: string[] = [];
  const remaining = new Set([...tables.keys()].sort());
  while (remaining.size > 0) {
    const pending = (table: string) => [...(childrenOf.get(table) ?? [])].filter((child) => remaining.has(child)).length;
    // A table none of whose children is left; in a cycle, the one with the fewest left.
    let next = [...remaining].find((table) => pending(table) === 0);
    next ??= [...remaining].sort((a, b) => pending(a) - pending(b))[0];
    ordered.push(next);
    remaining.delete(next);
  }
  return ordered.map((key) => {
    const { schema, name } = tables.get(key)!;
    return `"${schema.replace(/"/g, '""')}"."${name.replace(/"/g, '""')}"`;
  });
}

function markDone(em: EntityManager, deletionUuid: string): Promise<number> {
  return em.nativeUpdate(TenantDeletion, { uuid: deletionUuid }, { status: 'done', finishedAt: new Date(), error: null });
}
