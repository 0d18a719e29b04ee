import { ContributedDeps, coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef } from '../agents';
import { contactDirectoryRef } from '../contacts';
import { registerCampaigns } from './campaigns';
import { campaignSecretColumn } from './campaigns/campaign-secret';
import * as entities from './entities';
import { forgetDeletedContacts } from './forget-deleted-contact';
import { Migration0001Outreach } from './migrations/0001-outreach';
import { createOutreachTasks, outreachTasksRef } from './outreach-tasks';
import { registerTasks } from './tasks';
import { taskSchedulerRef } from './tasks/task-scheduler';
import { createScheduler } from './tasks/task-scheduling';
import { builtInExecutors } from './tasks/built-in-executors';
import { taskExecutorDepsRef, taskExecutors, type TaskExecutor } from './tasks/task-executors';
import { taskSecretColumn } from './tasks/task-secret';

// The public API of the outreach plugin: what other plugins may import.
export {
  taskExecutors,
  contributeTaskExecutor,
  taskExecutorDepsRef,
  pendingAttempt,
  PendingAttempt,
  type TaskExecutor,
  type TaskExecutionContext,
  type TaskValidationContext,
} from './tasks/task-executors';
export type { TaskJson } from './tasks/task-view';
export { outreachTasksRef, type OutreachTasks, type TaskCreateBody, type AttemptOutcome } from './outreach-tasks';
export { TASK_TOPICS, type TaskEvent } from './tasks/task-topics';
export { TaskCreate } from './tasks/task-schemas';

/**
 * Outreach: rules, campaigns, pools and listings of contacts, and tasks, the scheduled
 * units of work an agent executes, run on the bus by the executor of their type.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-outreach', class: Migration0001Outreach }],
  provides: [taskExecutors],
  contributes: builtInExecutors.map((executor) => taskExecutors.add(executor)),
  services: [
    // One per kernel, shared by the routes (init) and outreachTasksRef.
    createServiceFactory({ service: taskSchedulerRef, deps: { bus: coreServices.bus }, factory: ({ bus }) => createScheduler(bus) }),
    // One per kernel: where plugins hand over the services their executors name.
    createServiceFactory({ service: taskExecutorDepsRef, deps: {}, factory: () => new ContributedDeps<TaskExecutor>((executor) => `task executor "${executor.type}"`) }),
    createServiceFactory({
      service: outreachTasksRef,
      deps: {
        orm: coreServices.orm,
        scheduler: taskSchedulerRef,
        tenants: coreServices.tenant,
        secrets: coreServices.secrets,
        agents: agentDirectoryRef,
        contacts: contactDirectoryRef,
        executorDeps: taskExecutorDepsRef,
        bus: coreServices.bus,
        logger: coreServices.logger,
      },
      factory: ({ orm, scheduler, tenants, secrets, agents, contacts, executorDeps, bus, logger }, { extensions }) =>
        createOutreachTasks(orm, scheduler, tenants, { agents, contacts, secrets, executorDeps, bus, logger, executors: extensions.items(taskExecutors) }),
    }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    egress: coreServices.egress,
    logger: coreServices.logger,
    secrets: coreServices.secrets,
    agents: agentDirectoryRef,
    contacts: contactDirectoryRef,
    scheduler: taskSchedulerRef,
    executorDeps: taskExecutorDepsRef,
  },
  init({ http, bus, egress, logger, secrets, agents, contacts, scheduler, executorDeps }, { extensions }) {
    // The write-only webhook secrets, sealed for their tenant: `switchboard secrets rotate` re-seals them.
    secrets.declareColumn(taskSecretColumn);
    secrets.declareColumn(campaignSecretColumn);
    const executors = extensions.items(taskExecutors);
    const runtime = { http, bus, egress, logger, secrets, agents, contacts, executors, executorDeps };
    // Static paths first (`/tasks`), then the campaign area's.
    registerTasks(runtime, scheduler);
    registerCampaigns({ http, bus, logger, secrets, agents, contacts, tasks: scheduler, taskTypes: new Set(executors.map((executor) => executor.type)), executors, executorDeps });
    forgetDeletedContacts(bus);
  },
});
