import type { EntityManager } from '@mikro-orm/postgresql';
import { DataEnvelope, NotFoundError, defineRoute, type AnyRoute } from '../../../core';
import type { FlowCatalog } from '../app/flow-catalog';
import { FlowExecution, FlowStep } from '../entities';
import { isExternal, runAction } from '../engine/run-action';
import type { FlowsRuntime } from '../flows-runtime';
import type { OutputOf } from '../model/references';
import { loadNamed, stepJson, type LastTest } from './flow-view';
import { FlowStepSchema, StepParams } from './schemas';
import { StepOrder, findFlow, stepsOf } from './step-order';

/** A trigger's test output: what the flow's latest execution started with, else the trigger's sample. */
async function testTrigger(catalog: FlowCatalog, em: EntityManager, step: FlowStep): Promise<Omit<LastTest, 'tested_at'>> {
  const trigger = catalog.trigger(step.appUid, step.triggerKey!);
  const [latest] = await em.find(FlowExecution, { flowUuid: step.flowUuid }, { orderBy: { createdAt: 'desc', uuid: 'desc' }, limit: 1 });
  if (latest) return { data: latest.triggerEvent, error: null };
  if (!trigger) return { data: null, error: `app "${step.appUid}" has no trigger "${step.triggerKey}" (is its plugin installed?)` };
  return { data: trigger.outputSample, error: null };
}

/** Testing a step: it runs once, and what it gave is what later steps' tests read. */
export function stepTestRoute(runtime: FlowsRuntime): AnyRoute {
  const { catalog } = runtime;
  return defineRoute({
    method: 'POST',
    path: '/api/v1/flow/:uuid/steps/:step/test',
    summary: 'Test a step',
    description:
      'Runs the step once and stores what it gave in `last_test` (`data`, `error`, `tested_at`); later steps’ tests see it through their references. ' +
      'A trigger’s test data is the event of the flow’s latest execution, or else the trigger’s sample output. An action runs for real (an HTTP ' +
      'request is sent, an agent is changed) with its references rendered from earlier steps’ `last_test.data`. The answer is 200 whenever the test ' +
      'ran: a failure shows in `last_test.error`. Allowed while the flow is live: a test changes no step’s definition.',
    tags: ['flows'],
    params: StepParams,
    errors: [404],
    response: DataEnvelope(FlowStepSchema),
    // An external action (a vendor's API) runs with no transaction open; anything else in one of its own, then the result in another.
    transactional: false,
    handler: async ({ params, em, tenant }) => {
      const flow = await findFlow(em, params.uuid);
      const order = new StepOrder(await stepsOf(em, flow.uuid), catalog);
      const step = order.byUuid.get(params.step);
      if (!step) throw new NotFoundError('Step not found');
      let outcome: Omit<LastTest, 'tested_at'>;
      if (step.kind === 'trigger') {
        outcome = await testTrigger(catalog, em, step);
      } else {
        const outputOf: OutputOf = (uuid) => {
          const earlier = order.byUuid.get(uuid)?.lastTest;
          return earlier ? { found: true, value: earlier.data } : { found: false, value: undefined };
        };
        const input = {
          flowUuid: flow.uuid,
          stepUuid: step.uuid,
          versionUuid: null,
          executionUuid: null,
          appUid: step.appUid,
          actionKey: step.actionKey!,
          actionVersion: step.definitionVersion,
          agentUuid: step.agentUuid,
          appConnectionUuid: step.appConnectionUuid,
          config: step.config,
          position: order.position(step),
        };
        const action = catalog.action(step.appUid, step.actionKey!, step.definitionVersion);
        const run =
          action && isExternal(runtime, step.appUid, action)
            ? await runAction(runtime, em, tenant, input, outputOf)
            : await em.transactional((tx) => runAction(runtime, tx, tenant, input, outputOf));
        outcome = { data: run.response, error: run.error };
      }
      const lastTest: LastTest = { ...outcome, tested_at: new Date().toISOString() };
      await em.transactional(async (tx) => {
        // Deleted while the test ran: nothing to record it on.
        const row = await tx.findOne(FlowStep, { uuid: step.uuid });
        if (!row) throw new NotFoundError('Step not found');
        row.lastTest = lastTest;
      });
      step.lastTest = lastTest;
      return { data: stepJson(step, order, await loadNamed(em, runtime, order.steps)) };
    },
  });
}
