import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, preparedStatement, QuotaExceededError, type QuotaService } from '../../../core';

/** Counts at most `$2` rows: past the limit the exact number does not matter, so the scan stops there. */
const COUNT_ROWS = preparedStatement('tables.quota-row-count', 'select count(*)::int as n from (select 1 from data_table_records where tenant_uuid = $1 limit $2) rows');

async function rowsUpTo(em: EntityManager, tenantUuid: string, limit: number): Promise<number> {
  const [{ n }] = await boundQuery<{ n: number }>(em, COUNT_ROWS, [tenantUuid, limit + 1]);
  return n;
}

/** The `table_rows` quota (rows in all of the tenant's tables) before `adding` records are inserted: a 429 naming it when they do not fit. */
export async function checkRowQuota(quotas: QuotaService | undefined, em: EntityManager, tenantUuid: string, adding: number): Promise<void> {
  await quotas?.check(em, 'table_rows', async (limit) => (await rowsUpTo(em, tenantUuid, limit)) + adding, tenantUuid);
}

/**
 * How many rows an import may still add (Infinity when the tenant's rows are unlimited).
 * Read once when the import starts, without the lock `check` takes (an import's transaction
 * is long; it must not hold up the tenant's other writes), so writes racing the import may
 * overshoot the limit by what they add meanwhile.
 */
export async function rowRoom(quotas: QuotaService | undefined, em: EntityManager, tenantUuid: string): Promise<{ room: number; error?: QuotaExceededError }> {
  const limit = quotas ? await quotas.limit(em, 'table_rows', tenantUuid) : 0;
  if (limit === 0) return { room: Infinity };
  return { room: Math.max(0, limit - (await rowsUpTo(em, tenantUuid, limit))), error: new QuotaExceededError('table_rows', limit) };
}
