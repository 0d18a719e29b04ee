import type { BusService, Egress, HttpService, Logger, SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import type { TaskExecutor } from './task-executors';
import { registerTaskRoutes } from './task-routes';
import { registerTaskRunner } from './task-runner';
import type { TaskScheduler } from './task-scheduler';
import { createScheduler } from './task-scheduling';

export interface TasksRuntime {
  http: HttpService;
  bus: BusService;
  egress: Egress;
  logger: Logger;
  secrets: SecretsService;
  agents: AgentDirectory;
  contacts: ContactDirectory;
  executors: readonly TaskExecutor[];
}

/** The task scheduler (create, cancel) the other outreach folders use. */
export function createTaskScheduler(runtime: TasksRuntime): TaskScheduler {
  return createScheduler(runtime.bus);
}

/** Task routes and the runner (due messages, rule windows, executors, retries). */
export function registerTasks(runtime: TasksRuntime, scheduler: TaskScheduler): void {
  registerTaskRoutes(runtime, scheduler);
  registerTaskRunner(runtime);
}
