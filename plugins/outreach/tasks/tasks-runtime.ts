import type { ContributedDeps } from '../../../core';
import type { BusService, Egress, HttpService, Logger, SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import type { TaskExecutor } from './task-executors';

/** What the tasks folder (routes, runner, task creation) is given by the plugin's init. */
export interface TasksRuntime {
  http: HttpService;
  bus: BusService;
  egress: Egress;
  logger: Logger;
  secrets: SecretsService;
  agents: AgentDirectory;
  contacts: ContactDirectory;
  executors: readonly TaskExecutor[];
  /** The services executors named in their deps. */
  executorDeps: ContributedDeps<TaskExecutor>;
}
