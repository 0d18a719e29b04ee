import { taskRoutes } from './task-routes';
import { registerTaskRunner } from './task-runner';
import type { TaskScheduler } from './task-scheduler';
import type { TasksRuntime } from './tasks-runtime';

/** Task routes and the runner (due messages, rule windows, executors, retries). */
export function registerTasks(runtime: TasksRuntime, scheduler: TaskScheduler): void {
  for (const route of taskRoutes(runtime, scheduler)) runtime.http.route(route);
  registerTaskRunner(runtime);
}
