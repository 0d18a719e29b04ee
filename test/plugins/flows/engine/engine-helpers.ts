import path from 'node:path';
import type { TestKernel, TestTenant } from '../../../../core/testing';
import { waitFor } from '../../../../core/testing';

/** Re-exported for the tests that import it from here. */
export { waitFor };

export const AGENTS = path.resolve(__dirname, '../../../../plugins/agents');
export const FLOWS = path.resolve(__dirname, '../../../../plugins/flows');
export const PROBE = path.resolve(__dirname, 'fixtures/flow-probe');

/** RabbitMQ when AMQP_URL points at one (the kit reads no environment), in-process delivery otherwise. */
export const TRANSPORT: Record<string, unknown> = process.env.AMQP_URL ? { amqpUrl: process.env.AMQP_URL } : {};

/**
 * One step of a flow to deploy, as the builder API takes it: a probe action unless it
 * says; the first spec is the trigger (probe `manual` unless it says). `parent` names a
 * branching step by its spec `name`. List the specs in flow order (a branch's children
 * right after their parent), so `{{stepN...}}` in `config` means the same step when it
 * is added as when the flow is complete.
 */
export interface StepSpec {
  name: string;
  app?: string;
  trigger?: string;
  action?: string;
  config?: Record<string, unknown>;
  parent?: string;
  branch?: string;
  continueOnError?: boolean;
  agentUuid?: string;
  connectionUuid?: string;
}

export interface Deployed {
  flowUuid: string;
  versionUuid: string;
  /** Step uuids by spec name. */
  ids: Record<string, string>;
  /** The trigger step's config as the builder made it (a hook trigger's `hook_url`). */
  triggerConfig: Record<string, unknown>;
}

/** Builds a flow through the builder API and deploys it. */
export async function deployFlow(owner: TestTenant, specs: StepSpec[]): Promise<Deployed> {
  const flowUuid: string = (await owner.api.post('/api/v1/flow').send({ name: 'Engine test flow' }).expect(201)).body.data.uuid;
  const ids: Record<string, string> = {};
  let triggerConfig: Record<string, unknown> = {};
  for (const [index, spec] of specs.entries()) {
    const res = await owner.api
      .post(`/api/v1/flow/${flowUuid}/steps`)
      .send({
        app_uid: spec.app ?? 'probe',
        ...(index === 0 ? { trigger_key: spec.trigger ?? 'manual' } : { action_key: spec.action }),
        config: spec.config ?? {},
        ...(spec.parent ? { parent_step_uuid: ids[spec.parent], branch_key: spec.branch } : {}),
        ...(spec.continueOnError ? { continue_on_error: true } : {}),
        ...(spec.agentUuid ? { agent_uuid: spec.agentUuid } : {}),
        ...(spec.connectionUuid ? { app_connection_uuid: spec.connectionUuid } : {}),
      });
    if (res.status !== 201) throw new Error(`step "${spec.name}" refused: ${res.status} ${JSON.stringify(res.body)}`);
    ids[spec.name] = res.body.data.uuid;
    if (index === 0) triggerConfig = res.body.data.config;
  }
  const deployed = await owner.api.post(`/api/v1/flow/${flowUuid}/deploy`);
  if (deployed.status !== 200) throw new Error(`deploy refused: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  return { flowUuid, versionUuid: deployed.body.data.live_version.uuid, ids, triggerConfig };
}

export async function undeployFlow(owner: TestTenant, flowUuid: string): Promise<void> {
  await owner.api.post(`/api/v1/flow/${flowUuid}/undeploy`).expect(200);
}

/** A soft delete: the flow is gone from the API; its versions and executions stay. */
export async function deleteFlow(owner: TestTenant, flowUuid: string): Promise<void> {
  await owner.api.delete(`/api/v1/flow/${flowUuid}`).expect(200);
}

export function sql<T = any>(kit: TestKernel, statement: string, params: unknown[] = []): Promise<T[]> {
  return kit.kernel.orm.em.fork().getConnection().execute(statement, params);
}

/** Starts one execution per event through FlowTriggers (the probe plugin's route); returns their uuids. */
export async function fire(api: TestKernel['api'], versionUuid: string, events: unknown[] = [{}]): Promise<string[]> {
  const res = await api.post('/api/v1/probe/fire').send({ version_uuid: versionUuid, events }).expect(200);
  return res.body.data;
}

export interface ExecutionRow {
  uuid: string;
  status: string;
  cursor: string | null;
  segment: number;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface StepRow {
  step_uuid: string;
  position: number;
  status: string;
  request: any;
  response: any;
  error: string | null;
  duration_ms: number;
}

export const executionRow = async (kit: TestKernel, uuid: string): Promise<ExecutionRow> =>
  (await sql<ExecutionRow>(kit, 'select uuid, status, cursor, segment, error, started_at, finished_at from flow_executions where uuid = ?', [uuid]))[0];

export const stepRows = (kit: TestKernel, executionUuid: string): Promise<StepRow[]> =>
  sql<StepRow>(kit, 'select step_uuid, position, status, request, response, error, duration_ms from flow_execution_steps where execution_uuid = ? order by position, created_at', [executionUuid]);

/** Waits until the execution is succeeded or failed. */
export async function finished(kit: TestKernel, uuid: string, timeoutMs = 15_000): Promise<ExecutionRow> {
  return waitFor(() => executionRow(kit, uuid), (row) => row?.status === 'succeeded' || row?.status === 'failed', timeoutMs);
}

