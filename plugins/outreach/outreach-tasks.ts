import { createServiceRef, type OrmService, type SecretsService, type TenantService } from '../../core';
import type { AgentDirectory } from '../agents';
import type { ContactDirectory } from '../contacts';
import { createTask, type TaskCreateBody } from './tasks/create-task';
import type { TaskExecutor } from './tasks/task-executors';
import type { TaskScheduler } from './tasks/task-scheduler';
import { taskJson, type TaskJson } from './tasks/task-view';

export type { TaskCreateBody } from './tasks/create-task';

/** The outreach plugin's task API for other plugins (the `create_task` flow step), in the current tenant and transaction. */
export interface OutreachTasks {
  /** Creates a task exactly as `POST /api/v1/tasks` does: the same body, defaults and 422s (a ValidationError). */
  create(body: TaskCreateBody): Promise<TaskJson>;
}

export const outreachTasksRef = createServiceRef<OutreachTasks>('outreach.tasks');

export function createOutreachTasks(
  orm: OrmService,
  scheduler: TaskScheduler,
  tenants: TenantService,
  runtime: { agents: AgentDirectory; contacts: ContactDirectory; executors: readonly TaskExecutor[]; secrets: SecretsService },
): OutreachTasks {
  return { create: async (body) => taskJson(await createTask(runtime, scheduler, orm.em, tenants.require().uuid, body)) };
}
