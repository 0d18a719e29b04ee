import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, newUuid, preparedStatement, type BusMessage, type TenantRef } from '../../../core';
import type { ExecutionStatus } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import type { DefinitionStep, FlowDefinition } from '../model/flow-definition';
import { referencedSteps } from '../model/references';
import type { ExecutionMetrics } from './execution-metrics';
import { isExternal, runAction, type StepRunInput, type StepRunResult } from './run-action';
import { publishSegment, type SegmentMessage } from './segment-message';

/** The execution's columns a segment reads. */
export interface ExecutionRow {
  uuid: string;
  flow_uuid: string;
  version_uuid: string;
  status: ExecutionStatus;
  trigger_event: unknown;
  cursor: string | null;
  segment: number;
}

interface VersionSnapshot {
  tenantUuid: string;
  number: number;
  definition: FlowDefinition;
}

// The statements of a segment, prepared once per connection (every execution runs them).
const SELECT_VERSION = preparedStatement('flows.version-definition', 'select number, definition from flow_versions where uuid = $1 and tenant_uuid = $2');
const LOCK_EXECUTION = preparedStatement(
  'flows.execution-lock',
  'select uuid, flow_uuid, version_uuid, status, trigger_event, cursor, segment from flow_executions where uuid = $1 and tenant_uuid = $2 for update',
);
export const EARLIER_OUTPUTS = preparedStatement(
  'flows.execution-earlier-outputs',
  "select step_uuid, response from flow_execution_steps where execution_uuid = $1 and tenant_uuid = $2 and status = 'succeeded'",
);
const RESUME_STEP = preparedStatement(
  'flows.execution-resume-step',
  "update flow_execution_steps set status = 'succeeded', updated_at = $1::timestamptz where execution_uuid = $2 and step_uuid = $3 and tenant_uuid = $4 and status = 'waiting' returning response",
);
/**
 * A segment's end in one statement: its step records (one JSON array, so the text is the same for any number of
 * steps) and the execution's new state.
 */
const RECORD_SEGMENT = preparedStatement(
  'flows.execution-record-segment',
  'with steps as (insert into flow_execution_steps (uuid, tenant_uuid, created_at, updated_at, execution_uuid, step_uuid, position, status, request, response, error, duration_ms) ' +
    'select r.uuid, $2, $3, $3, $4, r.step_uuid, r.position, r.status, r.request, r.response, r.error, round(r.duration_ms)::int ' +
    'from jsonb_to_recordset($1::jsonb) as r(uuid uuid, step_uuid uuid, position int, status text, request jsonb, response jsonb, error text, duration_ms float8)) ' +
    'update flow_executions set status = $5, cursor = $6::uuid, segment = $7::int, error = $8, started_at = coalesce(started_at, $9::timestamptz), ' +
    'finished_at = $10::timestamptz, updated_at = $3 where uuid = $4 and tenant_uuid = $2',
);

/** Versions are immutable, so their definitions are kept in process; the oldest goes when the map is full. */
const versions = new Map<string, VersionSnapshot>();
const VERSION_CACHE_SIZE = 1000;

export async function loadVersion(em: EntityManager, tenant: TenantRef, uuid: string): Promise<VersionSnapshot | null> {
  const cached = versions.get(uuid);
  if (cached) return cached.tenantUuid === tenant.uuid ? cached : null;
  const [row] = await boundQuery<{ number: number; definition: FlowDefinition }>(em, SELECT_VERSION, [uuid, tenant.uuid]);
  if (!row) return null;
  const version: VersionSnapshot = { tenantUuid: tenant.uuid, number: row.number, definition: row.definition };
  if (versions.size >= VERSION_CACHE_SIZE) versions.delete(versions.keys().next().value!);
  versions.set(uuid, version);
  return version;
}

const COUNT_RUNNING = preparedStatement(
  'flows.executions-running',
  "select count(*)::int as n from (select 1 from flow_executions where tenant_uuid = $1 and status = 'running' limit $2) running",
);

/** Taken by a starting execution until its first segment commits (and it counts as running), without waiting for it. */
const TRY_START_LOCK = preparedStatement('flows.executions-start-lock', 'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked');

/** How long an execution held back by the `concurrent_flow_executions` quota waits before it tries again. */
const HOLD_MS = 1_000;
/** ... and one held back only because another of its tenant's executions is starting at the same moment. */
const BUSY_MS = 100;

/**
 * The `concurrent_flow_executions` quota: an execution about to start while its tenant already
 * has as many running (paused ones included) waits, queued, and tries again a moment later,
 * rather than failing: whoever started it (a trigger, the API) gets its execution all the same.
 * Exact: a tenant's executions start one at a time under an advisory lock held until the
 * starting segment commits (its status `running` then counts). An execution that finds the
 * lock taken waits its turn the same way, so no worker's connection waits on the lock.
 */
async function heldBack(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, payload: SegmentMessage): Promise<boolean> {
  const limit = await runtime.quotas.limit(em, 'concurrent_flow_executions', tenant.uuid);
  if (limit === 0) return false;
  const [{ locked }] = await boundQuery<{ locked: boolean }>(em, TRY_START_LOCK, [`quota:${tenant.uuid}:concurrent_flow_executions`]);
  const [{ n }] = locked ? await boundQuery<{ n: number }>(em, COUNT_RUNNING, [tenant.uuid, limit]) : [{ n: limit }];
  if (n < limit) return false;
  const wait = locked ? HOLD_MS : BUSY_MS;
  // Jittered, so held executions do not all come back at once.
  await publishSegment(runtime.bus, payload, new Date(Date.now() + wait + Math.random() * wait));
  return true;
}

/** An external step run by a segment's prepare (external-step.ts), for its handler to record. */
export interface PreparedStep {
  segment: number;
  stepUuid: string;
  result: StepRunResult;
}

/** What runAction is given for a step of a deployed version in an execution. */
export function stepInput(execution: ExecutionRow, step: DefinitionStep): StepRunInput {
  return {
    flowUuid: execution.flow_uuid,
    stepUuid: step.uuid,
    versionUuid: execution.version_uuid,
    executionUuid: execution.uuid,
    appUid: step.app_uid,
    actionKey: step.action_key!,
    actionVersion: step.definition_version ?? 1,
    agentUuid: step.agent_uuid,
    appConnectionUuid: step.app_connection_uuid,
    config: step.config,
    position: step.position,
  };
}

/** One step's record in RECORD_SEGMENT's array (a JSON null there is SQL NULL). */
interface StepRecord {
  uuid: string;
  step_uuid: string;
  position: number;
  status: string;
  request: unknown;
  response: unknown;
  error: string | null;
  duration_ms: number;
}

/**
 * Runs one segment of an execution, in the bus handler's transaction: the steps from
 * the cursor on, each recorded as it runs, until an impure step has run (its result,
 * the cursor past it and the message for the next segment then commit together), a
 * step pauses, a step fails, or the flow ends. Pure steps run on in the same segment.
 *
 * An external step (one that calls another system) is the one step of its segment and runs
 * in the message's prepare, with no transaction open (`prepared`); this handler then records
 * its result and runs on. Reaching another, it ends the segment there.
 *
 * So a worker killed mid-segment leaves the execution at its last commit: the segment
 * runs again from there, its pure steps harmlessly, and its one impure step (the last
 * of the segment) with the same idempotency key. No step is ever recorded twice.
 */
export async function runSegment(
  runtime: FlowsRuntime,
  em: EntityManager,
  message: BusMessage<SegmentMessage>,
  executions?: ExecutionMetrics,
  prepared?: PreparedStep | null,
): Promise<void> {
  const { payload } = message;
  const tenant = runtime.tenants.require();
  // Raw SQL, one round trip per statement (the tenant is an explicit condition, as the tenant filter would add). The row
  // lock orders this segment after any other transaction still writing the execution; an ORM lock would also lock
  // the flow and version rows its tenant filter joins, and so run one execution of a flow at a time.
  const [execution] = await boundQuery<ExecutionRow>(em, LOCK_EXECUTION, [payload.execution_uuid, tenant.uuid]);
  // Gone (pruned), done, or this segment already ran: a stale or repeated message.
  if (!execution || execution.segment !== payload.segment || execution.status === 'succeeded' || execution.status === 'failed') return;
  if (execution.status === 'queued' && (await heldBack(runtime, em, tenant, payload))) return;
  const version = await loadVersion(em, tenant, execution.version_uuid);
  if (!version) throw new Error(`flow version ${execution.version_uuid} of execution ${execution.uuid} is missing`);
  const { definition } = version;

  const startedAt = new Date().toISOString();
  // What the segment changes, written at its end in one round trip (the step records and the execution row together).
  const records: StepRecord[] = [];
  const changes = {
    status: 'running' as ExecutionStatus,
    cursor: execution.cursor,
    segment: execution.segment,
    error: null as string | null,
    finishedAt: null as string | null,
  };
  const persist = () =>
    boundQuery(em, RECORD_SEGMENT, [
      JSON.stringify(records),
      tenant.uuid,
      new Date().toISOString(),
      execution.uuid,
      changes.status,
      changes.cursor,
      changes.segment,
      changes.error,
      startedAt,
      changes.finishedAt,
    ]);

  const outputs = new Map<string, unknown>([[definition.trigger, execution.trigger_event]]);
  let earlierLoaded = execution.segment === 0;
  /** Outputs of steps recorded by earlier segments, read once and only when a step refers to one. */
  const loadEarlierOutputs = async (step: DefinitionStep) => {
    if (earlierLoaded || ![...referencedSteps(step.config)].some((uuid) => !outputs.has(uuid))) return;
    earlierLoaded = true;
    const rows = await boundQuery<{ step_uuid: string; response: unknown }>(em, EARLIER_OUTPUTS, [execution.uuid, tenant.uuid]);
    for (const row of rows) if (!outputs.has(row.step_uuid)) outputs.set(row.step_uuid, row.response);
  };
  const fail = (error: string) => {
    changes.status = 'failed';
    changes.error = error;
    changes.finishedAt = new Date().toISOString();
    changes.cursor = null;
  };
  const startsExternal = (cursor: string | null): boolean => {
    const next = cursor ? definition.steps[cursor] : undefined;
    const action = next?.action_key ? runtime.catalog.action(next.app_uid, next.action_key, next.definition_version ?? 1) : undefined;
    return action !== undefined && isExternal(runtime, next!.app_uid, action);
  };
  const endSegment = async (at?: Date, resume?: string) => {
    changes.segment += 1;
    // A resumed segment records the paused step first, in its handler: its prepare runs nothing.
    const external = !resume && startsExternal(changes.cursor);
    await publishSegment(runtime.bus, { execution_uuid: execution.uuid, segment: changes.segment, ...(resume ? { resume } : {}), ...(external ? { external: true as const } : {}) }, at);
  };

  if (payload.resume) {
    const [paused] = await boundQuery<{ response: unknown }>(em, RESUME_STEP, [new Date().toISOString(), execution.uuid, payload.resume, tenant.uuid]);
    if (paused) outputs.set(payload.resume, paused.response);
  }

  const run = async (): Promise<void> => {
    let cursor = changes.cursor;
    while (cursor) {
      const step = definition.steps[cursor];
      if (!step?.action_key) return fail(`Step ${cursor} is not an action step of version ${version.number}`);
      const action = runtime.catalog.action(step.app_uid, step.action_key, step.definition_version ?? 1);
      let result: StepRunResult;
      if (action && isExternal(runtime, step.app_uid, action)) {
        // Run by this message's prepare, with no transaction open; any other external step gets a segment of its own.
        if (prepared?.stepUuid !== step.uuid || prepared.segment !== execution.segment || records.length > 0) return endSegment();
        result = prepared.result;
      } else {
        await loadEarlierOutputs(step);
        result = await runAction(runtime, em, tenant, stepInput(execution, step), (uuid) => (outputs.has(uuid) ? { found: true, value: outputs.get(uuid) } : { found: false, value: undefined }));
      }
      records.push({
        uuid: newUuid(),
        step_uuid: step.uuid,
        position: step.position,
        status: result.status,
        request: result.request ?? null,
        response: result.response ?? null,
        error: result.error,
        duration_ms: result.durationMs,
      });

      if (result.status === 'failed' && !step.continue_on_error) return fail(`Step ${step.position} (${step.app_uid}.${step.action_key}) failed: ${result.error}`);
      if (result.status !== 'failed') outputs.set(step.uuid, result.response);
      cursor = (result.branch !== null ? step.branches?.[result.branch] : null) ?? step.next;
      changes.cursor = cursor;
      if (result.status === 'waiting') return endSegment(result.resumeAt!, step.uuid);
      // An impure step's effect commits before anything runs after it (an action gone from the catalog did nothing).
      if (cursor && action && !action.pure) return endSegment();
    }
    changes.status = 'succeeded';
    changes.finishedAt = new Date().toISOString();
  };
  await run();
  await persist();
  if (changes.status === 'succeeded' || changes.status === 'failed') executions?.finished(changes.status);
}
