import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, newUuid } from '../../../core';

/**
 * The stored cursors of poll triggers (FlowTriggerCursor), by raw statements: raw SQL
 * bypasses the tenant filter, so each names the tenant itself (row-level security holds too).
 */

export interface StoredCursor {
  cursor: unknown;
  /** 0 before the first poll stored one. */
  revision: number;
}

export async function readCursor(em: EntityManager, tenantUuid: string, versionUuid: string): Promise<StoredCursor> {
  const [row] = await boundQuery<StoredCursor>(em, 'select cursor, revision from flow_trigger_cursors where version_uuid = $1 and tenant_uuid = $2', [versionUuid, tenantUuid]);
  return row ?? { cursor: null, revision: 0 };
}

/**
 * Stores `cursor` if the stored revision is still `readRevision` (what the poll read);
 * false when another poll stored one since, and this poll must not fire.
 */
export async function storeCursor(
  em: EntityManager,
  tenantUuid: string,
  trigger: { versionUuid: string; stepUuid: string },
  cursor: unknown,
  readRevision: number,
): Promise<boolean> {
  const stored = await boundQuery(
    em,
    'insert into flow_trigger_cursors (uuid, tenant_uuid, created_at, updated_at, version_uuid, step_uuid, cursor, revision) ' +
      'values ($1, $2, $3::timestamptz, $3::timestamptz, $4, $5, $6::jsonb, 1) ' +
      'on conflict (version_uuid) do update set cursor = excluded.cursor, revision = flow_trigger_cursors.revision + 1, updated_at = excluded.updated_at ' +
      'where flow_trigger_cursors.revision = $7 and flow_trigger_cursors.tenant_uuid = $2 returning revision',
    [newUuid(), tenantUuid, new Date().toISOString(), trigger.versionUuid, trigger.stepUuid, JSON.stringify(cursor ?? null), readRevision],
  );
  return stored.length === 1;
}

/** A version that stopped polling (undeployed, replaced, its flow deleted) keeps no cursor. */
export async function dropCursor(em: EntityManager, tenantUuid: string, versionUuid: string): Promise<void> {
  await boundQuery(em, 'delete from flow_trigger_cursors where version_uuid = $1 and tenant_uuid = $2', [versionUuid, tenantUuid]);
}
