import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ensureRowLevelSecurity, rowLevelSecurityOf } from './row-level-security';

/** Any fixed number, the same in every Switchboard process: the key of the migration lock. */
const MIGRATION_LOCK = 7_165_823_914;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so API
 * replicas and workers starting together on a fresh database take turns instead of
 * racing to create the same tables. Then puts row-level security on every tenant-scoped
 * table (row-level-security.ts). The lock lives on its own connection and ends
 * with it, even if this process dies.
 */
export async function migrateWithLock(orm: MikroORM, clientUrl: string): Promise<string[]> {
  const lock = new Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = (await orm.migrator.up()).map((migration) => migration.name);
    // Under the same lock, after the plugins' migrations too: their tables get their policies here, none by hand.
    await ensureRowLevelSecurity(orm, rowLevelSecurityOf(orm.em));
    return applied;
  } finally {
    await lock.end().catch(() => {});
  }
}
