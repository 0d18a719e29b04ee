import type { EntityManager } from '@mikro-orm/postgresql';
import { WAITING_STATUSES, type TaskStatus } from '../entities/task.entity';

/**
 * One raw statement in the caller's transaction (when it has one). Raw SQL bypasses the
 * ORM's tenant filter, so every statement given here names the tenant itself.
 */
export function run<T = Record<string, unknown>>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute(text, [...params], 'all', em.getTransactionContext());
}

/** The task statuses that count as "this pool item is being worked": waiting or running. */
export const UNFINISHED_TASK_STATUSES: readonly TaskStatus[] = [...WAITING_STATUSES, 'in_progress'];

/** `'a', 'b'` for an `in (...)` of constant statuses (never user input). */
export const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');
