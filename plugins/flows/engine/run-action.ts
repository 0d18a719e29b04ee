import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantRef } from '../../../core';
import { unsupportedVersion } from '../app/definition-versions';
import type { ActionContext, FlowActionDefinition, FlowConnectionValue } from '../app/flow-app';
import { ConnectionNeedsReauth, engineHttp } from '../connections/connection-http';
import { loadConnection } from '../connections/connection-store';
import type { FlowsRuntime } from '../flows-runtime';
import { summarize, validateConfig } from '../model/config-validation';
import { renderConfig, type OutputOf } from '../model/references';

/** One action step about to run: in an execution, or alone (the builder's step test). */
export interface StepRunInput {
  flowUuid: string;
  stepUuid: string;
  versionUuid: string | null;
  executionUuid: string | null;
  appUid: string;
  actionKey: string;
  /** The version of the action the step was built (and deployed) with: that version runs, never a newer one. */
  actionVersion: number;
  agentUuid: string | null;
  appConnectionUuid: string | null;
  /** The stored form: references by step uuid. */
  config: Record<string, unknown>;
  position: number;
}

export interface StepRunResult {
  /** `waiting`: the action paused the execution until `resumeAt`. */
  status: 'succeeded' | 'failed' | 'waiting';
  /** The rendered input the action was given (null when the step failed before rendering). */
  request: unknown;
  /** The action's output, as JSON (null when it failed). */
  response: unknown;
  error: string | null;
  durationMs: number;
  /** The branch a branching action chose; null for other actions and on failure. */
  branch: string | null;
  resumeAt: Date | null;
}

/** Why a step's action cannot run: its app, its action or the action's version is gone. */
function missingAction(runtime: FlowsRuntime, step: StepRunInput): string {
  const versions = runtime.catalog.versions('action', step.appUid, step.actionKey);
  if (versions) return unsupportedVersion(step.appUid, 'action', step.actionKey, step.actionVersion, versions);
  return runtime.catalog.app(step.appUid) ? `App "${step.appUid}" has no action "${step.actionKey}"` : `App "${step.appUid}" is not installed`;
}

/** A step's failure, said to the user: an Error's message, anything else as text. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}

/**
 * The output as the database will store it, so the steps after this one see the same
 * value whether they run in this segment or a later one (a Date becomes its ISO text,
 * `undefined` members vanish). Throws for what JSON cannot hold (a cycle, a BigInt).
 */
function asJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

/**
 * Runs one action step with the version of its action it was built with: renders its
 * config with the outputs so far (a lookup, never code evaluation), validates the
 * rendered input against the action's schema, opens its connection, and calls the
 * action. An action that is unknown, refused, or throws
 * is a `failed` result, never an exception: the caller records it like any other.
 * An action that is not pure runs under a savepoint, so a failure leaves none of its
 * database writes or bus messages behind.
 */
export async function runAction(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, step: StepRunInput, outputOf: OutputOf): Promise<StepRunResult> {
  const started = performance.now();
  const result = (fields: Pick<StepRunResult, 'status' | 'request'> & Partial<StepRunResult>): StepRunResult => ({
    response: null,
    error: null,
    branch: null,
    resumeAt: null,
    ...fields,
    durationMs: Math.round(performance.now() - started),
  });

  const action = runtime.catalog.action(step.appUid, step.actionKey, step.actionVersion);
  if (!action) return result({ status: 'failed', request: null, error: missingAction(runtime, step) });
  const input = renderConfig(step.config, outputOf);
  const problems = validateConfig(action.input, input, { atRunTime: true });
  if (Object.keys(problems).length > 0) return result({ status: 'failed', request: input, error: `Invalid input: ${summarize(problems)}` });

  let connection: FlowConnectionValue | null = null;
  if (step.appConnectionUuid) {
    try {
      connection = await loadConnection(em, runtime.secrets, tenant.uuid, step.appConnectionUuid);
    } catch (error) {
      if (error instanceof ConnectionNeedsReauth) return result({ status: 'failed', request: input, error: error.message });
      return result({ status: 'failed', request: input, error: `The app connection could not be opened: ${messageOf(error)}` });
    }
    if (!connection) return result({ status: 'failed', request: input, error: `App connection ${step.appConnectionUuid} no longer exists` });
  }

  const http = engineHttp(runtime, runtime.catalog.app(step.appUid)?.auth, connection);
  // Set by the action through its context, so declared wide (TypeScript cannot see the callbacks run).
  let branch = null as string | null;
  let resumeAt = null as Date | null;
  const context = (actionEm: EntityManager): ActionContext => ({
    tenant,
    em: actionEm,
    egress: runtime.egress,
    logger: runtime.logger.child({ flow_uuid: step.flowUuid, step_uuid: step.stepUuid, execution_uuid: step.executionUuid }),
    input,
    connection,
    http,
    agentUuid: step.agentUuid,
    step: { flowUuid: step.flowUuid, stepUuid: step.stepUuid, versionUuid: step.versionUuid },
    executionUuid: step.executionUuid,
    // A test run is a fresh call each time: a server honouring the key must not answer it from an earlier test.
    idempotencyKey: step.executionUuid ? `${step.executionUuid}:${step.stepUuid}` : `test:${step.stepUuid}:${randomUUID()}`,
    branch(key) {
      if (!action.branches?.includes(key)) throw new Error(`"${key}" is not a branch of ${step.appUid}.${step.actionKey} (${(action.branches ?? []).join(', ') || 'it has none'})`);
      branch = key;
    },
    pause({ until }) {
      if (!(until instanceof Date) || Number.isNaN(until.getTime())) throw new Error('pause() needs a valid Date in `until`');
      resumeAt = until;
    },
  });

  try {
    const output = await invoke(action, em, context, isExternal(runtime, step.appUid, action));
    if (action.branches && branch === null) throw new Error(`${step.appUid}.${step.actionKey} chose no branch`);
    return result({ status: resumeAt ? 'waiting' : 'succeeded', request: input, response: output, branch, resumeAt });
  } catch (error) {
    return result({ status: 'failed', request: input, error: messageOf(error) });
  }
}

/** Whether the engine runs the action with no transaction open (FlowActionDefinition.external). */
export function isExternal(runtime: FlowsRuntime, appUid: string, action: FlowActionDefinition): boolean {
  return action.external ?? runtime.catalog.app(appUid)?.category === 'connect';
}

/**
 * The action's output as JSON; an impure action inside a savepoint, which its failure (or an output JSON cannot hold)
 * rolls back. An external one runs on the EntityManager it is given: outside any transaction, where the engine runs it.
 */
async function invoke(action: FlowActionDefinition, em: EntityManager, context: (em: EntityManager) => ActionContext, external: boolean): Promise<unknown> {
  if (action.pure || external) return asJson(await action.run(context(em)));
  return em.transactional(async (savepoint) => asJson(await action.run(context(savepoint))));
}

