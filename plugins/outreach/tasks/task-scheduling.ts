import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import { Task, WAITING_STATUSES } from '../entities/task.entity';
import { armDueMany } from './due-messages';
import type { NewTask, TaskScheduler } from './task-scheduler';

/**
 * The scheduler campaigns, listings and the task routes create tasks through: rows
 * and due messages in the caller's transaction. Rows are written by one flush (the
 * ORM sends multi-row inserts), so a listing's thousand new tasks are a few statements.
 * The caller has checked the members (types with executors, its own references).
 */
export function createScheduler(bus: BusService): TaskScheduler {
  return {
    async create(em: EntityManager, tasks: readonly NewTask[]): Promise<Task[]> {
      if (tasks.length === 0) return [];
      const now = new Date();
      const rows = tasks.map((task) =>
        em.create(Task, {
          type: task.type as Task['type'],
          agentUuid: task.agentUuid,
          contactUuid: task.contactUuid,
          scheduledAt: task.scheduledAt,
          nextAttemptAt: task.scheduledAt,
          title: task.title ?? '',
          description: task.description ?? '',
          campaignUuid: task.campaignUuid ?? null,
          poolUuid: task.poolUuid ?? null,
          ruleUuid: task.ruleUuid ?? null,
          timezone: task.timezone ?? null,
          priority: task.priority ?? 5,
          expiresAt: task.expiresAt ?? null,
          maxRetryAttempts: task.maxRetryAttempts ?? 3,
          retryIntervalMinutes: task.retryIntervalMinutes ?? 60,
          retryStrategy: task.retryStrategy ?? 'fixed',
          retrySchedule: task.retrySchedule ?? null,
          taskData: task.taskData ?? {},
          webhookSecret: task.webhookSecret ?? null,
          metadata: task.metadata ?? {},
          autoQueue: task.autoQueue ?? false,
          status: task.autoQueue ? 'queued' : 'scheduled',
          result: null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      await em.flush();
      await armDueMany(bus, rows);
      return rows;
    },

    // One UPDATE each; the tenant filter scopes it. A task being run holds its row lock:
    // these wait for the run, then find it no longer waiting and leave it. Set-based on
    // purpose: cancelling per pool item took 86 s to pause a campaign of 10,000 contacts.
    cancelForPoolItem: (em, poolUuid, contactUuid) => cancelWaitingWhere(em, { poolUuid, contactUuid }),
    cancelWaiting: (em, scope) =>
      cancelWaitingWhere(em, 'campaignUuid' in scope ? { campaignUuid: scope.campaignUuid, poolUuid: { $ne: null } } : { poolUuid: scope.poolUuid }),
  };
}

function cancelWaitingWhere(em: EntityManager, where: FilterQuery<Task>): Promise<number> {
  const now = new Date();
  return em.nativeUpdate(Task, { $and: [where, { status: { $in: [...WAITING_STATUSES] } }] }, { status: 'cancelled', finishedAt: now, nextAttemptAt: null, updatedAt: now });
}
