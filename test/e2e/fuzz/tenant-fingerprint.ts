import { TenantScopedEntity } from '../../../core';
import type { TestKernel } from '../../../core/testing';

/** Writes committed so far, per tenant-owned table: what a refused request must leave as it was. */
export type Fingerprint = Map<string, number>;

/**
 * The tables of the TenantScoped entities in the ORM metadata: tenant data. Kernel
 * tables (the bus outbox, idempotency keys, tokens, rate buckets) are not TenantScoped,
 * so a refused request may touch them (a stored idempotent answer) without it counting.
 */
export function tenantTables(kit: TestKernel): string[] {
  const tables = new Set<string>();
  for (const meta of kit.kernel.orm.getMetadata() as unknown as Iterable<{ class?: Function; tableName?: string; schema?: string; abstract?: boolean; embeddable?: boolean; virtual?: boolean }>) {
    if (meta.abstract || meta.embeddable || meta.virtual || !meta.tableName || !meta.class) continue;
    if (!(meta.class.prototype instanceof TenantScopedEntity)) continue;
    tables.add(meta.schema && meta.schema !== '*' ? `"${meta.schema}"."${meta.tableName}"` : `"${meta.tableName}"`);
  }
  return [...tables].sort();
}

/**
 * Counts every row inserted, updated or deleted in the given tables, in the test's own
 * database: a row-level trigger appends one line per written row to `fuzz_writes`. The
 * line is part of the writing transaction, so a request whose work rolled back leaves
 * none, and one that committed anything does, even an update that kept the row count.
 * Appending (rather than bumping one counter) keeps concurrent writers from queueing
 * or deadlocking on the counter. Reading it costs one small query, unlike counting
 * every tenant table around every request.
 */
export async function installWriteCounter(kit: TestKernel, tables: string[]): Promise<void> {
  const connection = kit.kernel.orm.em.fork().getConnection();
  await connection.execute('create unlogged table if not exists fuzz_writes (id bigserial primary key, tbl text not null)');
  await connection.execute(
    `create or replace function fuzz_count_write() returns trigger language plpgsql as $$ begin insert into fuzz_writes (tbl) values (TG_TABLE_NAME); return null; end $$`,
  );
  for (const table of tables) {
    await connection.execute(`create or replace trigger fuzz_count_write after insert or update or delete on ${table} for each row execute function fuzz_count_write()`);
  }
}

/** Committed writes per table so far. */
export async function fingerprint(kit: TestKernel): Promise<Fingerprint> {
  const rows: Array<{ tbl: string; n: number }> = await kit.kernel.orm.em.fork().getConnection().execute('select tbl, count(*)::int as n from fuzz_writes group by tbl');
  return new Map(rows.map(({ tbl, n }) => [tbl, n]));
}

/** The tables written between two fingerprints, as `table +n`: empty when nothing was. */
export function difference(before: Fingerprint, after: Fingerprint): string[] {
  const changed: string[] = [];
  for (const [table, n] of after) {
    const delta = n - (before.get(table) ?? 0);
    if (delta !== 0) changed.push(`${table} ${delta} row write(s)`);
  }
  return changed;
}
