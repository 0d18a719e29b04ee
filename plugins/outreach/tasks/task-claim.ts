import type { EntityManager } from '@mikro-orm/postgresql';
import { Task, WAITING_STATUSES } from '../entities/task.entity';

/**
 * Due messages travel on the relay's clock (the database's); a message may arrive a
 * moment before the time it carries, and this much early still counts as due.
 */
export const DUE_SLACK_MS = 250;

const waiting = WAITING_STATUSES.map((status) => `'${status}'`).join(', ');

export interface ClaimedTask {
  task: Task;
  /** The database's clock at the claim: what "due" and "expired" are measured against. */
  now: Date;
}

/**
 * The tenant's best due task, locked for this transaction: the lowest `priority`
 * number first, then the longest due, then the oldest id. `SKIP LOCKED` passes over
 * tasks another worker (or an edit) holds, so two workers never take the same task
 * and none waits for another's run. Raw SQL, so the tenant is an explicit condition.
 */
export async function claimNextDue(em: EntityManager, tenantUuid: string): Promise<ClaimedTask | null> {
  const [row] = await em.getConnection().execute(
    `select t.*, clock_timestamp() as claimed_at from tasks t ` +
      // next_attempt_at is never before scheduled_at; the second condition lets the (tenant, status, scheduled_at) index bound the scan.
      `where t.tenant_uuid = ? and t.status in (${waiting}) and t.next_attempt_at <= clock_timestamp() + ? * interval '1 millisecond' ` +
      `and t.scheduled_at <= clock_timestamp() + ? * interval '1 millisecond' ` +
      `order by t.priority, t.next_attempt_at, t.uuid limit 1 for update skip locked`,
    [tenantUuid, DUE_SLACK_MS, DUE_SLACK_MS],
    'all',
    em.getTransactionContext(),
  );
  if (!row) return null;
  const { claimed_at: claimedAt, ...columns } = row;
  return { task: em.map(Task, columns), now: new Date(claimedAt) };
}

export interface TaskTiming {
  status: string;
  /** When the claim will find it due: its next attempt, never before its scheduled time. */
  dueAt: Date;
  now: Date;
}

/**
 * Where one task stands, locked unless someone else holds it (then null: the holder
 * is running or editing it and settles its next due message itself).
 */
export async function lockIfFree(em: EntityManager, tenantUuid: string, taskUuid: string): Promise<TaskTiming | null> {
  const [row] = await em.getConnection().execute(
    `select status, greatest(next_attempt_at, scheduled_at) as due_at, clock_timestamp() as now from tasks where uuid = ? and tenant_uuid = ? and next_attempt_at is not null for update skip locked`,
    [taskUuid, tenantUuid],
    'all',
    em.getTransactionContext(),
  );
  return row ? { status: row.status, dueAt: new Date(row.due_at), now: new Date(row.now) } : null;
}
