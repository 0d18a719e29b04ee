import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef, type BusService, type ContributedDeps, type Logger, type OrmService, type SecretsService, type TenantService } from '../../core';
import type { AgentDirectory } from '../agents';
import type { ContactDirectory } from '../contacts';
import { createTask, type TaskCreateBody } from './tasks/create-task';
import type { TaskExecutor } from './tasks/task-executors';
import { settleAttempt, type AttemptOutcome } from './tasks/task-runner';
import type { TaskScheduler } from './tasks/task-scheduler';
import { taskJson, type TaskJson } from './tasks/task-view';

export type { TaskCreateBody } from './tasks/create-task';
export type { AttemptOutcome } from './tasks/task-runner';

/** The outreach plugin's task API for other plugins (the `create_task` flow step), in the current tenant and transaction. */
export interface OutreachTasks {
  /** Creates a task exactly as `POST /api/v1/tasks` does: the same body, defaults and 422s (a ValidationError). */
  create(body: TaskCreateBody): Promise<TaskJson>;
  /**
   * The outcome of an attempt its executor left pending (`pendingAttempt()`: a call placed
   * after the attempt committed), in `em`'s transaction: completes the task, or fails the
   * attempt, retried per the task's strategy and rule. Returns false, changing nothing,
   * when the task is not `in_progress` at that attempt (an outcome told twice, a late one).
   */
  settle(em: EntityManager, taskUuid: string, attempt: number, outcome: AttemptOutcome): Promise<boolean>;
}

export const outreachTasksRef = createServiceRef<OutreachTasks>('outreach.tasks');

export function createOutreachTasks(
  orm: OrmService,
  scheduler: TaskScheduler,
  tenants: TenantService,
  runtime: {
    agents: AgentDirectory;
    contacts: ContactDirectory;
    executors: readonly TaskExecutor[];
    secrets: SecretsService;
    executorDeps: ContributedDeps<TaskExecutor>;
    bus: BusService;
    logger: Logger;
  },
): OutreachTasks {
  return {
    create: async (body) => taskJson(await createTask(runtime, scheduler, orm.em, tenants.require().uuid, body)),
    settle: (em, taskUuid, attempt, outcome) => settleAttempt(runtime, em, taskUuid, attempt, outcome),
  };
}
