import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef } from '../../../core';
import type { Task } from '../entities';

/** A task to create on behalf of a campaign (its pool item) or the API. */
export interface NewTask {
  type: string;
  agentUuid: string;
  contactUuid: string;
  scheduledAt: Date;
  title?: string;
  description?: string;
  campaignUuid?: string | null;
  poolUuid?: string | null;
  ruleUuid?: string | null;
  timezone?: string | null;
  priority?: number;
  expiresAt?: Date | null;
  maxRetryAttempts?: number;
  retryIntervalMinutes?: number;
  retryStrategy?: 'fixed' | 'exponential' | 'custom';
  retrySchedule?: number[] | null;
  taskData?: Record<string, unknown>;
  /** The write-only secret, already sealed for the tenant (task-secret.ts). */
  webhookSecret?: string | null;
  metadata?: Record<string, unknown>;
  autoQueue?: boolean;
}

/**
 * How the outreach folders create and cancel tasks: the tasks folder owns the task
 * lifecycle (its due message, statuses); campaigns and listings only ask.
 */
export interface TaskScheduler {
  /** Creates the tasks and publishes their due messages, in the caller's transaction. */
  create(em: EntityManager, tasks: readonly NewTask[]): Promise<Task[]>;
  /** Cancels the waiting (`pending|scheduled|queued`) tasks of that pool's contact; returns how many. */
  cancelForPoolItem(em: EntityManager, poolUuid: string, contactUuid: string): Promise<number>;
  /** Cancels the waiting pool tasks of a campaign (pause, completion) or of one pool (its deletion), in one statement; returns how many. */
  cancelWaiting(em: EntityManager, scope: { campaignUuid: string } | { poolUuid: string }): Promise<number>;
}

/** The plugin's one scheduler, shared by its routes and `outreachTasksRef` (not exported from index.ts). */
export const taskSchedulerRef = createServiceRef<TaskScheduler>('outreach.task-scheduler');
