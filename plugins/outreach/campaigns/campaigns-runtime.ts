import type { BusService, ContributedDeps, HttpService, Logger, SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import type { TaskExecutor } from '../tasks/task-executors';
import type { TaskScheduler } from '../tasks/task-scheduler';

/** What the campaigns folder (rules, campaigns, pools, listings) is given by the plugin's init. */
export interface CampaignsRuntime {
  http: HttpService;
  bus: BusService;
  logger: Logger;
  secrets: SecretsService;
  agents: AgentDirectory;
  contacts: ContactDirectory;
  tasks: TaskScheduler;
  /** Task types that have an executor: a campaign of another type is refused. */
  taskTypes: ReadonlySet<string>;
  /** The executors and the services they named: a campaign's `task_data` goes through its executor's `validate`, as a task's does. */
  executors: readonly TaskExecutor[];
  executorDeps: ContributedDeps<TaskExecutor>;
}
