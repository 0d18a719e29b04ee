import type { EntityManager } from '@mikro-orm/postgresql';
import { findByUuid, type BusMessage } from '../../../core';
import { FlowExecution, FlowExecutionStep, FlowVersion } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import type { DefinitionStep } from '../model/flow-definition';
import { referencedSteps } from '../model/references';
import { runAction } from './run-action';
import { publishSegment, type SegmentMessage } from './segment-message';

/**
 * Runs one segment of an execution, in the bus handler's transaction: the steps from
 * the cursor on, each recorded as it runs, until an impure step has run (its result,
 * the cursor past it and the message for the next segment then commit together), a
 * step pauses, a step fails, or the flow ends. Pure steps run on in the same segment.
 *
 * So a worker killed mid-segment leaves the execution at its last commit: the segment
 * runs again from there, its pure steps harmlessly, and its one impure step (the last
 * of the segment) with the same idempotency key. No step is ever recorded twice.
 */
export async function runSegment(runtime: FlowsRuntime, em: EntityManager, message: BusMessage<SegmentMessage>): Promise<void> {
  const { payload } = message;
  const tenant = runtime.tenants.require();
  // The row lock orders this segment after any other transaction still writing the execution. It is
  // taken by hand: findOne's lock would also lock the flow and version rows its tenant filter joins,
  // and so run one execution of a flow at a time.
  await em
    .getConnection()
    .execute('select 1 from flow_executions where uuid = ? and tenant_uuid = ? for update', [payload.execution_uuid, tenant.uuid], 'all', em.getTransactionContext());
  const execution = await findByUuid(em, FlowExecution, payload.execution_uuid);
  // Gone (pruned), done, or this segment already ran: a stale or repeated message.
  if (!execution || execution.segment !== payload.segment || execution.status === 'succeeded' || execution.status === 'failed') return;
  const version = await findByUuid(em, FlowVersion, execution.versionUuid);
  if (!version) throw new Error(`flow version ${execution.versionUuid} of execution ${execution.uuid} is missing`);
  const { definition } = version;

  execution.status = 'running';
  execution.startedAt ??= new Date();
  const outputs = new Map<string, unknown>([[definition.trigger, execution.triggerEvent]]);
  let earlierLoaded = execution.segment === 0;
  /** Outputs of steps recorded by earlier segments, read once and only when a step refers to one. */
  const loadEarlierOutputs = async (step: DefinitionStep) => {
    if (earlierLoaded || ![...referencedSteps(step.config)].some((uuid) => !outputs.has(uuid))) return;
    earlierLoaded = true;
    const rows = await em.find(FlowExecutionStep, { executionUuid: execution.uuid, status: 'succeeded' }, { fields: ['stepUuid', 'response'] });
    for (const row of rows) if (!outputs.has(row.stepUuid)) outputs.set(row.stepUuid, row.response);
  };
  const fail = (error: string) => {
    execution.status = 'failed';
    execution.error = error;
    execution.finishedAt = new Date();
    execution.cursor = null;
  };
  const endSegment = async (at?: Date, resume?: string) => {
    execution.segment += 1;
    await publishSegment(runtime.bus, { execution_uuid: execution.uuid, segment: execution.segment, ...(resume ? { resume } : {}) }, at);
  };

  if (payload.resume) {
    const paused = await em.findOne(FlowExecutionStep, { executionUuid: execution.uuid, stepUuid: payload.resume, status: 'waiting' });
    if (paused) {
      paused.status = 'succeeded';
      outputs.set(paused.stepUuid, paused.response);
    }
  }

  let cursor = execution.cursor;
  while (cursor) {
    const step = definition.steps[cursor];
    if (!step?.action_key) return fail(`Step ${cursor} is not an action step of version ${version.number}`);
    await loadEarlierOutputs(step);
    const result = await runAction(
      runtime,
      em,
      tenant,
      {
        flowUuid: execution.flowUuid,
        stepUuid: step.uuid,
        versionUuid: version.uuid,
        executionUuid: execution.uuid,
        appUid: step.app_uid,
        actionKey: step.action_key,
        agentUuid: step.agent_uuid,
        appConnectionUuid: step.app_connection_uuid,
        config: step.config,
        position: step.position,
      },
      (uuid) => (outputs.has(uuid) ? { found: true, value: outputs.get(uuid) } : { found: false, value: undefined }),
    );
    // Persisted with the segment's other records in one multi-row insert at commit.
    em.create(FlowExecutionStep, {
      executionUuid: execution.uuid,
      stepUuid: step.uuid,
      position: step.position,
      status: result.status,
      request: result.request,
      response: result.response,
      error: result.error,
      durationMs: result.durationMs,
    });

    if (result.status === 'failed' && !step.continue_on_error) return fail(`Step ${step.position} (${step.app_uid}.${step.action_key}) failed: ${result.error}`);
    if (result.status !== 'failed') outputs.set(step.uuid, result.response);
    cursor = (result.branch !== null ? step.branches?.[result.branch] : null) ?? step.next;
    execution.cursor = cursor;
    if (result.status === 'waiting') return endSegment(result.resumeAt!, step.uuid);
    // An impure step's effect commits before anything runs after it (an action gone from the catalog did nothing).
    const action = runtime.catalog.action(step.app_uid, step.action_key);
    if (cursor && action && !action.pure) return endSegment();
  }
  execution.status = 'succeeded';
  execution.finishedAt = new Date();
}
