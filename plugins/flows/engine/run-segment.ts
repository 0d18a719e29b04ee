import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid, type BusMessage, type TenantRef } from '../../../core';
import type { ExecutionStatus } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import type { DefinitionStep, FlowDefinition } from '../model/flow-definition';
import { referencedSteps } from '../model/references';
import { runAction } from './run-action';
import { publishSegment, type SegmentMessage } from './segment-message';

/** The execution's columns a segment reads. */
interface ExecutionRow {
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

/** Versions are immutable, so their definitions are kept in process; the oldest goes when the map is full. */
const versions = new Map<string, VersionSnapshot>();
const VERSION_CACHE_SIZE = 1000;

async function loadVersion(em: EntityManager, tenant: TenantRef, uuid: string): Promise<VersionSnapshot | null> {
  const cached = versions.get(uuid);
  if (cached) return cached.tenantUuid === tenant.uuid ? cached : null;
  const [row] = await em
    .getConnection()
    .execute('select number, definition from flow_versions where uuid = ? and tenant_uuid = ?', [uuid, tenant.uuid], 'all', em.getTransactionContext());
  if (!row) return null;
  const version: VersionSnapshot = { tenantUuid: tenant.uuid, number: row.number, definition: row.definition };
  if (versions.size >= VERSION_CACHE_SIZE) versions.delete(versions.keys().next().value!);
  versions.set(uuid, version);
  return version;
}

/** A json column's value as the ORM writes it: SQL NULL for null, JSON text otherwise. */
const json = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));

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
  const connection = em.getConnection();
  const sql = (text: string, params: unknown[]): Promise<any[]> => connection.execute(text, params, 'all', em.getTransactionContext());
  // Raw SQL, one round trip per statement (the tenant is an explicit condition, as the tenant filter would add). The row
  // lock orders this segment after any other transaction still writing the execution; an ORM lock would also lock
  // the flow and version rows its tenant filter joins, and so run one execution of a flow at a time.
  const [execution] = (await sql(
    'select uuid, flow_uuid, version_uuid, status, trigger_event, cursor, segment from flow_executions where uuid = ? and tenant_uuid = ? for update',
    [payload.execution_uuid, tenant.uuid],
  )) as (ExecutionRow | undefined)[];
  // Gone (pruned), done, or this segment already ran: a stale or repeated message.
  if (!execution || execution.segment !== payload.segment || execution.status === 'succeeded' || execution.status === 'failed') return;
  const version = await loadVersion(em, tenant, execution.version_uuid);
  if (!version) throw new Error(`flow version ${execution.version_uuid} of execution ${execution.uuid} is missing`);
  const { definition } = version;

  const startedAt = new Date().toISOString();
  // What the segment changes, written at its end in one round trip (the step records and the execution row together).
  const records: unknown[][] = [];
  const changes = {
    status: 'running' as ExecutionStatus,
    cursor: execution.cursor,
    segment: execution.segment,
    error: null as string | null,
    finishedAt: null as string | null,
  };
  const persist = async () => {
    const now = new Date().toISOString();
    const values = records.map(() => '(?::uuid, ?::uuid, ?::timestamptz, ?::timestamptz, ?::uuid, ?::uuid, ?::int, ?, ?::jsonb, ?::jsonb, ?, ?::int)');
    // Two statements in one round trip (the parameters are inlined, so the simple protocol carries both).
    const insert = records.length
      ? 'insert into "flow_execution_steps" (uuid, tenant_uuid, created_at, updated_at, execution_uuid, step_uuid, position, status, request, response, error, duration_ms) ' +
        `values ${values.join(', ')}; `
      : '';
    await sql(
      `${insert}update "flow_executions" set status = ?, cursor = ?::uuid, segment = ?::int, error = ?, started_at = coalesce(started_at, ?::timestamptz), ` +
        'finished_at = ?::timestamptz, updated_at = ?::timestamptz where uuid = ? and tenant_uuid = ?',
      [
        ...records.flatMap((record) => [newUuid(), tenant.uuid, now, now, execution.uuid, ...record]),
        changes.status,
        changes.cursor,
        changes.segment,
        changes.error,
        startedAt,
        changes.finishedAt,
        now,
        execution.uuid,
        tenant.uuid,
      ],
    );
  };

  const outputs = new Map<string, unknown>([[definition.trigger, execution.trigger_event]]);
  let earlierLoaded = execution.segment === 0;
  /** Outputs of steps recorded by earlier segments, read once and only when a step refers to one. */
  const loadEarlierOutputs = async (step: DefinitionStep) => {
    if (earlierLoaded || ![...referencedSteps(step.config)].some((uuid) => !outputs.has(uuid))) return;
    earlierLoaded = true;
    const rows = await sql("select step_uuid, response from flow_execution_steps where execution_uuid = ? and tenant_uuid = ? and status = 'succeeded'", [
      execution.uuid,
      tenant.uuid,
    ]);
    for (const row of rows) if (!outputs.has(row.step_uuid)) outputs.set(row.step_uuid, row.response);
  };
  const fail = (error: string) => {
    changes.status = 'failed';
    changes.error = error;
    changes.finishedAt = new Date().toISOString();
    changes.cursor = null;
  };
  const endSegment = async (at?: Date, resume?: string) => {
    changes.segment += 1;
    await publishSegment(runtime.bus, { execution_uuid: execution.uuid, segment: changes.segment, ...(resume ? { resume } : {}) }, at);
  };

  if (payload.resume) {
    const [paused] = await sql(
      "update flow_execution_steps set status = 'succeeded', updated_at = ?::timestamptz where execution_uuid = ? and step_uuid = ? and tenant_uuid = ? and status = 'waiting' returning response",
      [new Date().toISOString(), execution.uuid, payload.resume, tenant.uuid],
    );
    if (paused) outputs.set(payload.resume, paused.response);
  }

  const run = async (): Promise<void> => {
    let cursor = changes.cursor;
    while (cursor) {
      const step = definition.steps[cursor];
      if (!step?.action_key) return fail(`Step ${cursor} is not an action step of version ${version.number}`);
      await loadEarlierOutputs(step);
      const result = await runAction(
        runtime,
        em,
        tenant,
        {
          flowUuid: execution.flow_uuid,
          stepUuid: step.uuid,
          versionUuid: execution.version_uuid,
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
      records.push([step.uuid, step.position, result.status, json(result.request), json(result.response), result.error, result.durationMs]);

      if (result.status === 'failed' && !step.continue_on_error) return fail(`Step ${step.position} (${step.app_uid}.${step.action_key}) failed: ${result.error}`);
      if (result.status !== 'failed') outputs.set(step.uuid, result.response);
      cursor = (result.branch !== null ? step.branches?.[result.branch] : null) ?? step.next;
      changes.cursor = cursor;
      if (result.status === 'waiting') return endSegment(result.resumeAt!, step.uuid);
      // An impure step's effect commits before anything runs after it (an action gone from the catalog did nothing).
      const action = runtime.catalog.action(step.app_uid, step.action_key);
      if (cursor && action && !action.pure) return endSegment();
    }
    changes.status = 'succeeded';
    changes.finishedAt = new Date().toISOString();
  };
  await run();
  await persist();
}
