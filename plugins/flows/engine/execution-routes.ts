import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Component,
  NotFoundError,
  PageQuery,
  ResourceId,
  Timestamp,
  Type,
  Uuid,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type TSchema,
} from '../../../core';
import { Flow, FlowExecution, FlowExecutionStep, FlowVersion, type ExecutionStatus } from '../entities';

const tags = ['flows'];
const STATUSES: ExecutionStatus[] = ['queued', 'running', 'succeeded', 'failed'];
const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

const ExecutionStepSchema = Component(
  'FlowExecutionStep',
  Type.Object({
    step_uuid: Uuid(),
    position: Type.Integer({ description: 'The step’s position in the version that ran (later edits of the flow do not change it)' }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('waiting')], {
      description: '`waiting`: the step paused the execution (a delay) and it has not resumed yet',
    }),
    request: Type.Unknown({ description: 'The step’s config as the action received it: references rendered with the outputs of the steps before it' }),
    response: Type.Unknown({ description: 'The action’s output; null when it failed' }),
    error: Nullable(Type.String(), 'Why the step failed; null when it did not'),
    duration_ms: Type.Integer({ description: 'How long the action ran (the time it kept the execution paused is not counted)' }),
  }),
);

const summaryProperties = {
  uuid: Uuid(),
  flow_uuid: Uuid(),
  version: Type.Integer({ description: 'The number of the deployed version that ran (1 for the first deploy, then 2, ...)' }),
  version_uuid: Uuid({ description: 'The deployed version that ran' }),
  status: Type.Union(
    STATUSES.map((status) => Type.Literal(status)),
    { description: '`queued` until a worker takes it, `running` (also while paused by a delay), then `succeeded` or `failed`' },
  ),
  error: Nullable(Type.String(), 'Why the execution failed: the failing step’s position, app, action and error; null otherwise'),
  created_at: Timestamp(),
  started_at: Nullable(Timestamp(), 'When a worker first ran it; null while queued'),
  finished_at: Nullable(Timestamp(), 'When it succeeded or failed; null before'),
};

const ExecutionSummary = Component('FlowExecutionSummary', Type.Object(summaryProperties));
const ExecutionSchema = Component(
  'FlowExecution',
  Type.Object({
    ...summaryProperties,
    trigger_event: Type.Unknown({ description: 'The trigger’s output: what started the execution, and what `{{step1...}}` references read' }),
    steps: Type.Array(ExecutionStepSchema, {
      description: 'The action steps that ran, in the order they ran (which is position order); steps of a branch not taken are absent',
    }),
  }),
);

const FlowParams = Type.Object({ uuid: ResourceId('flows.flow') });
const ExecutionParams = Type.Object({ uuid: ResourceId('flows.flow'), execution: ResourceId('flows.execution') });

/** A flow the tenant still has; a deleted one reads as gone, like the flow routes say. */
async function requireFlow(em: EntityManager, uuid: string): Promise<Flow> {
  const flow = await findByUuid(em, Flow, uuid);
  if (!flow || flow.deletedAt) throw new NotFoundError('Flow not found');
  return flow;
}

const summaryOf = (execution: Omit<FlowExecution, 'triggerEvent'>, versionNumber: number) => ({
  uuid: execution.uuid,
  flow_uuid: execution.flowUuid,
  version: versionNumber,
  version_uuid: execution.versionUuid,
  status: execution.status,
  error: execution.error,
  created_at: execution.createdAt.toISOString(),
  started_at: execution.startedAt?.toISOString() ?? null,
  finished_at: execution.finishedAt?.toISOString() ?? null,
});

const listExecutions = listRoute({
  path: '/api/v1/flow/:uuid/executions',
  summary: 'List a flow’s executions, newest first',
  description:
    'Every execution of every deployed version of the flow, newest first, optionally only those in one `status`. ' +
    'Items are summaries: read one execution for its `trigger_event` and its steps. Executions are kept for ' +
    '`FLOWS_EXECUTION_RETENTION_DAYS` days (30 by default) after they were created, once finished. A deleted flow answers 404.',
  tags,
  params: FlowParams,
  query: PageQuery({ status: Type.Optional(Type.Union(STATUSES.map((status) => Type.Literal(status)), { description: 'Only executions in this status' })) }),
  errors: [404],
  item: ExecutionSummary,
  page: async ({ params, query, em }) => {
    await requireFlow(em, params.uuid);
    const [executions, total] = await em.findAndCount(
      FlowExecution,
      { flowUuid: params.uuid, ...(query.status ? { status: query.status } : {}) },
      {
        exclude: ['triggerEvent'],
        orderBy: { createdAt: 'desc', uuid: 'desc' },
        ...pageWindow(query),
      },
    );
    const versionUuids = [...new Set(executions.map((execution) => execution.versionUuid))];
    const versions = versionUuids.length === 0 ? [] : await em.find(FlowVersion, { uuid: { $in: versionUuids } }, { fields: ['number'] });
    const numberOf = new Map(versions.map((version) => [version.uuid, version.number]));
    return [executions.map((execution) => summaryOf(execution, numberOf.get(execution.versionUuid)!)), total];
  },
});

const readExecution = readRoute({
  path: '/api/v1/flow/:uuid/executions/:execution',
  summary: 'Read one execution with its steps',
  description:
    'What started the execution (`trigger_event`) and what each action step that ran did: the rendered `request`, the `response`, ' +
    'the `error`, `duration_ms` and `status`. `version` is the number of the deployed version that ran (`version_uuid` its id). ' +
    'An execution of another flow, or of a deleted flow, answers 404.',
  tags,
  params: ExecutionParams,
  resource: ExecutionSchema,
  read: async ({ params, em }) => {
    await requireFlow(em, params.uuid);
    const execution = await findByUuid(em, FlowExecution, params.execution);
    if (!execution || execution.flowUuid !== params.uuid) throw new NotFoundError('Execution not found');
    const version = await em.findOneOrFail(FlowVersion, { uuid: execution.versionUuid }, { fields: ['number'] });
    const steps = await em.find(FlowExecutionStep, { executionUuid: execution.uuid }, { orderBy: { position: 'asc', createdAt: 'asc' } });
    return {
      ...summaryOf(execution, version.number),
      trigger_event: execution.triggerEvent,
      steps: steps.map((step) => ({
        step_uuid: step.stepUuid,
        position: step.position,
        status: step.status,
        request: step.request,
        response: step.response,
        error: step.error,
        duration_ms: step.durationMs,
      })),
    };
  },
});

/** The execution history of a flow: what each run did, step by step. */
export const executionRoutes: AnyRoute[] = [listExecutions, readExecution];
