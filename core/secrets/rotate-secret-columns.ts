import type { Pool } from 'pg';
import { inPgTransaction } from '../data/pg-transaction';
import type { Logger } from '../logging/logger';
import type { SecretCipher } from './secret-cipher';
import type { SecretColumn } from './secret-column';
import { SecretDecryptionError, type SecretDecryptionFailure } from './secret-decryption-error';
import { sealedPrefix } from './sealed-format';

export interface RotationFailure {
  /** The row's id (never its value). */
  id: string;
  reason: SecretDecryptionFailure | 'invalid-context';
}

export interface ColumnRotationReport {
  table: string;
  column: string;
  /** Rows re-encrypted under the newest key. */
  rotated: number;
  /** Rows left as they were because they could not be decrypted. */
  failed: number;
  /** The first failures (at most FAILURES_LISTED), to find the rows. */
  failures: RotationFailure[];
}

export interface RotationReport {
  /** The key every rotated secret is now encrypted under. */
  keyId: string;
  rotated: number;
  failed: number;
  columns: ColumnRotationReport[];
}

export interface RotationOptions {
  /** Rows per transaction (default 500): short transactions keep row locks brief. */
  batchSize?: number;
  logger?: Logger;
}

const FAILURES_LISTED = 100;

/**
 * Re-encrypts, under the newest key, every value of the declared columns that is under
 * an older one. Each column is walked in primary-key order in batches; a batch selects
 * `FOR UPDATE` (waiting for, not skipping, rows a request is writing, so none is
 * missed) and writes its new values back in the same transaction. Values already under
 * the newest key are not touched, so an interrupted run is simply run again. A value
 * that does not decrypt is left as it was and reported; the old key must stay in
 * SECRETS_KEY until such rows are dealt with.
 */
export async function rotateSecretColumns(
  pool: Pick<Pool, 'connect'>,
  cipher: SecretCipher,
  columns: readonly SecretColumn[],
  options: RotationOptions = {},
): Promise<RotationReport> {
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('batchSize must be a positive integer');
  const keyId = cipher.keyring.newestId;
  const reports: ColumnRotationReport[] = [];
  for (const column of columns) {
    const report = await rotateColumn(pool, cipher, column, batchSize);
    options.logger?.info('rotated secrets', { table: report.table, column: report.column, rotated: report.rotated, failed: report.failed, key_id: keyId });
    reports.push(report);
  }
  return {
    keyId,
    rotated: reports.reduce((sum, r) => sum + r.rotated, 0),
    failed: reports.reduce((sum, r) => sum + r.failed, 0),
    columns: reports,
  };
}

async function rotateColumn(pool: Pick<Pool, 'connect'>, cipher: SecretCipher, column: SecretColumn, batchSize: number): Promise<ColumnRotationReport> {
  const report: ColumnRotationReport = { table: column.table, column: column.column, rotated: 0, failed: 0, failures: [] };
  const idType = await checkColumns(pool, column);
  const table = quote(column.table);
  const [id, tenant, value] = [quote(column.idColumn), quote(column.tenantColumn), quote(column.column)];
  const select = (after: boolean) =>
    `select ${id}::text as id, ${tenant}::text as tenant, ${value} as value from ${table} ` +
    `where ${value} is not null and not starts_with(${value}, $1)${after ? ` and ${id} > $2` : ''} ` +
    `order by ${id} limit ${batchSize} for update`;
  const update = `update ${table} as t set ${value} = v.value from unnest($1::${idType}[], $2::text[]) as v(id, value) where t.${id} = v.id`;
  const prefix = sealedPrefix(cipher.keyring.newestId);

  let after: string | undefined;
  for (;;) {
    const batch = await inPgTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string; tenant: string | null; value: string }>(
        select(after !== undefined),
        after === undefined ? [prefix] : [prefix, after],
      );
      const ids: string[] = [];
      const values: string[] = [];
      for (const row of rows) {
        try {
          values.push(cipher.rotate(row.value, column.context(row.tenant ?? '')));
          ids.push(row.id);
        } catch (error) {
          report.failed++;
          if (report.failures.length < FAILURES_LISTED) {
            report.failures.push({ id: row.id, reason: error instanceof SecretDecryptionError ? error.reason : 'invalid-context' });
          }
        }
      }
      if (ids.length > 0) await client.query(update, [ids, values]);
      report.rotated += ids.length;
      return rows;
    });
    if (batch.length < batchSize) return report;
    after = batch[batch.length - 1]!.id;
  }
}

/**
 * Confirms the declared table and columns exist, so a typo in a declaration stops the
 * rotation with its name rather than a bare SQL error, and returns the id column's
 * type (the batch update casts the ids to it so the primary key index is used).
 */
async function checkColumns(pool: Pick<Pool, 'connect'>, column: SecretColumn): Promise<string> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ name: string; type: string }>(
      'select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a ' +
        'where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped and a.attname = any($2)',
      [quote(column.table), [column.idColumn, column.tenantColumn, column.column]],
    );
    const types = new Map(rows.map((row) => [row.name, row.type]));
    const where = `secret column ${column.table}.${column.column}`;
    if (rows.length === 0) throw new Error(`${where}: table "${column.table}" does not exist`);
    for (const name of [column.idColumn, column.tenantColumn, column.column]) {
      if (!types.has(name)) throw new Error(`${where}: table "${column.table}" has no column "${name}"`);
    }
    const valueType = types.get(column.column)!;
    if (valueType !== 'text' && !valueType.startsWith('character varying')) {
      throw new Error(`${where}: the column is ${valueType}; encrypted secrets are stored as text`);
    }
    return types.get(column.idColumn)!;
  } finally {
    client.release();
  }
}


/** Identifiers are validated by defineSecretColumn, so quoting only guards reserved words. */
function quote(identifier: string): string {
  return `"${identifier}"`;
}
