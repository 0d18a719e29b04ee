import { Type, type BusMessage } from '../../core';
import { defineAction, defineTrigger } from '../flows';
import { TASK_TOPICS, TaskCreate, outreachTasksRef, type OutreachTasks, type TaskEvent, type TaskJson } from '../outreach';

/** The services the extension's code uses. The tasks service works in the current tenant and transaction, whichever step that is. */
export const outreachDeps = { tasks: outreachTasksRef };

const SAMPLE_TASK: Partial<TaskJson> = {
  uuid: '0190d5c2-0000-7000-8000-0000000000f1',
  title: 'Call back about the quote',
  type: 'follow_up',
  agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
  contact_uuid: '0190d5c2-0000-7000-8000-0000000000c1',
  status: 'completed',
  attempts: 1,
  scheduled_at: '2025-01-01T09:00:00.000Z',
  finished_at: '2025-01-01T09:00:01.000Z',
};

/**
 * The task create body without `agent_uuid` (the step's agent is the task's) and without
 * the task's read-only members, which the API ignores on the way in.
 */
const createMembers = Object.fromEntries(
  Object.entries(TaskCreate.properties).filter(([name, member]) => name !== 'agent_uuid' && (member as { readOnly?: boolean }).readOnly !== true),
);
const CreateTaskInput = Type.Object(createMembers, { additionalProperties: false });

export const createTask = defineAction({
  deps: outreachDeps,
  key: 'create_task',
  name: 'Create task',
  description:
    'Schedules a task for the step’s agent (`agent_uuid`), with the body of `POST /api/v1/tasks` less `agent_uuid`: `type`, `contact_uuid` or `contact`, ' +
    '`scheduled_at`, retries, `task_data`, ... with the same defaults and checks (a body the API would refuse fails the step with the same messages). ' +
    'The output is the created task.',
  input: CreateTaskInput,
  outputSample: SAMPLE_TASK,
  async run({ input, agentUuid, deps }) {
    if (!agentUuid) throw new Error('create_task needs the step’s agent_uuid');
    return deps.tasks.create({ ...(input as Record<string, unknown>), agent_uuid: agentUuid } as Parameters<OutreachTasks['create']>[0]);
  },
});

export const taskCompleted = defineTrigger({
  key: 'task_completed',
  name: 'Task completed',
  description:
    'Starts the flow when a task completes (its executor succeeded): the step’s agent’s tasks when it has an `agent_uuid`, any agent’s otherwise. ' +
    'The output is `{task}`, the task as `GET /api/v1/tasks/{uuid}` returns it.',
  input: Type.Object(
    {
      types: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, uniqueItems: true, description: 'Only tasks of these types; every type when absent' }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSample: { task: SAMPLE_TASK } as unknown as TaskEvent,
  event: {
    topic: TASK_TOPICS.completed,
    formerly: ['app-outreach.fire-task-completed'],
    matches: (config, { payload: { task } }: BusMessage<TaskEvent>, { agentUuid }) =>
      (!agentUuid || agentUuid === task.agent_uuid) && (!config.types || config.types.includes(task.type)),
  },
});
