import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, preparedStatement, type BusMessage } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';
import { isExternal, runAction } from './run-action';
import { EARLIER_OUTPUTS, loadVersion, stepInput, type ExecutionRow, type PreparedStep } from './run-segment';
import type { SegmentMessage } from './segment-message';


// Read without a lock: no transaction is open here. The handler locks the row and takes the result only if the execution is still where this read it.
const READ_EXECUTION = preparedStatement(
  'flows.execution-read',
  'select uuid, flow_uuid, version_uuid, status, trigger_event, cursor, segment from flow_executions where uuid = $1 and tenant_uuid = $2',
);

/**
 * The segment consumer's prepare: when the segment starts at an external step (one that
 * calls another system; its message says so), runs it here, with no database transaction open while the vendor
 * answers, reading the outputs it refers to first. Anything else (a queued execution,
 * a resume, an internal step) is left to the handler. A message delivered twice at once
 * may run the step twice, as a crash before the handler commits would: the step's
 * idempotency key is the same both times.
 */
export async function prepareExternalStep(runtime: FlowsRuntime, em: EntityManager, message: BusMessage<SegmentMessage>): Promise<PreparedStep | null> {
  const { payload } = message;
  if (payload.resume || !payload.external) return null;
  const tenant = runtime.tenants.require();
  const [execution] = await boundQuery<ExecutionRow>(em, READ_EXECUTION, [payload.execution_uuid, tenant.uuid]);
  if (!execution || execution.segment !== payload.segment || execution.status !== 'running' || !execution.cursor) return null;
  const version = await loadVersion(em, tenant, execution.version_uuid);
  const step = version?.definition.steps[execution.cursor];
  if (!version || !step?.action_key) return null;
  const action = runtime.catalog.action(step.app_uid, step.action_key, step.definition_version ?? 1);
  if (!action || !isExternal(runtime, step.app_uid, action)) return null;

  const outputs = new Map<string, unknown>([[version.definition.trigger, execution.trigger_event]]);
  for (const row of await boundQuery<{ step_uuid: string; response: unknown }>(em, EARLIER_OUTPUTS, [execution.uuid, tenant.uuid])) outputs.set(row.step_uuid, row.response);
  const result = await runAction(runtime, em, tenant, stepInput(execution, step), (uuid) => (outputs.has(uuid) ? { found: true, value: outputs.get(uuid) } : { found: false, value: undefined }));
  return { segment: execution.segment, stepUuid: step.uuid, result };
}
