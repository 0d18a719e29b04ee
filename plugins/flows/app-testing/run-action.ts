import { newUuid } from '../../../core';
import type { DepsScope } from '../app/app-deps';
import { pickVersion } from '../app/definition-versions';
import type { ActionContext, FlowActionDefinition } from '../app/flow-app';
import { asStored, inTenant, schemaProblems, setUpCall, type AppCallOptions } from './app-call';

export interface RunActionOptions extends AppCallOptions {
  /** The execution: a random uuid by default. `null` runs it as the builder's step test does. */
  executionUuid?: string | null;
}

export interface ActionRun {
  /** The action's output as the engine stores it (JSON), which later steps read as `{{stepN...}}`. */
  output: unknown;
  /** The branch a branching action chose (null for other actions). */
  branch: string | null;
  /** When a pausing action (delay) asked the execution to resume; null when it did not pause. */
  resumeAt: Date | null;
  /** What the action logged. */
  logs: Array<Record<string, unknown>>;
  /** The key the action was given for its outbound calls: `<execution>:<step>`, as in an execution. */
  idempotencyKey: string;
}

function actionOf(scope: DepsScope, key: string, version?: number): FlowActionDefinition<any> {
  const action = pickVersion(scope.actions, key, version);
  if (!action) throw new Error(`${'uid' in scope ? scope.uid : scope.app} has no action "${key}"${version === undefined ? '' : ` version ${version}`} (it has ${(scope.actions ?? []).map((a) => a.key).join(', ') || 'none'})`);
  return action;
}

/**
 * Runs one action of an app (or of an app extension) as the flows engine runs a step:
 * the input validated against the action's schema first (a `ValidationError`, 422, with
 * every problem by path, `config.url`, as the API reports a step's config), the step's
 * connection and agent checked as the builder checks them, then `run` with the context
 * the engine builds. An action that is not `pure` runs under a savepoint of the kit's
 * transaction, as in an execution. What the action throws is thrown as it is; a
 * branching action that chose no branch, or a branch or pause the engine would refuse,
 * throws the engine's error.
 *
 *   const { output } = await runAction(httpApp, 'request', { method: 'GET', url: vendor.url }, { kit });
 */
export async function runAction(scope: DepsScope, key: string, input: unknown, options: RunActionOptions = {}): Promise<ActionRun> {
  const action = actionOf(scope, key, options.version);
  const call = setUpCall(scope, options, schemaProblems(action.input, input, 'config'));
  const name = `${'uid' in scope ? scope.uid : scope.app}.${key}`;
  const executionUuid = options.executionUuid === undefined ? newUuid() : options.executionUuid;
  const idempotencyKey = executionUuid ? `${executionUuid}:${call.step.stepUuid}` : `test:${call.step.stepUuid}:${newUuid()}`;
  let branch = null as string | null;
  let resumeAt = null as Date | null;

  const output = await inTenant(options.kit, call.tenant, true, async (em) => {
    const context = (actionEm: typeof em): ActionContext => ({
      tenant: call.tenant,
      em: actionEm,
      egress: call.egress,
      logger: call.logger,
      input,
      connection: call.connection,
      http: call.http,
      agentUuid: call.agentUuid,
      step: { ...call.step, versionUuid: executionUuid === null ? null : call.step.versionUuid },
      executionUuid,
      idempotencyKey,
      branch(chosen) {
        if (!action.branches?.includes(chosen)) throw new Error(`"${chosen}" is not a branch of ${name} (${(action.branches ?? []).join(', ') || 'it has none'})`);
        branch = chosen;
      },
      pause({ until }) {
        if (!(until instanceof Date) || Number.isNaN(until.getTime())) throw new Error('pause() needs a valid Date in `until`');
        resumeAt = until;
      },
      ...call.deps,
    });
    const ran = options.kit && !action.pure ? em.transactional((savepoint) => action.run(context(savepoint as typeof em))) : action.run(context(em));
    return asStored(await ran);
  });
  if (action.branches && branch === null) throw new Error(`${name} chose no branch`);
  return { output, branch, resumeAt, logs: call.logs, idempotencyKey };
}
