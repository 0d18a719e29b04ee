import { DataEnvelope, ValidationError, defineRoute, type AnyRoute } from '../../../core';
import { upgradeConfig } from '../app/definition-versions';
import type { FlowTriggerDefinition } from '../app/flow-app';
import type { FlowsRuntime } from '../flows-runtime';
import { summarize, validateConfig } from '../model/config-validation';
import { keyOf, loadNamed, stepJson } from './flow-view';
import { FlowStepSchema, StepParams } from './schemas';
import { StepOrder, lockDraftFlow, stepsOf } from './step-order';
import { saved, stepOf } from './step-routes';

const messageOf = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));

/**
 * Upgrading a draft step to the newest version of its trigger or action: the app's
 * `migrate` functions turn its config into one the newest version takes (DefinitionVersion).
 */
export const stepUpgradeRoute = (runtime: FlowsRuntime): AnyRoute =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/:uuid/steps/:step/upgrade',
    summary: 'Upgrade a step to the newest version of its trigger or action',
    description:
      'A step keeps the version of its trigger or action it was created with (`action.version`, `trigger.version`); a deployed flow runs those ' +
      'versions for as long as the app still has them. When the app has a newer one (`latest_version`), this runs the app’s migrations on the ' +
      'step’s `config` and moves the step to the newest version; a step of a version the app no longer has (a `draft` saying so) is upgraded the ' +
      'same way. The migrated config must validate against the newest input schema: otherwise 422 naming each member (`config.<member>`) and ' +
      'nothing changes (fix the config under its version with PATCH first). A step already at the newest version is answered as it is. ' +
      'A live flow’s steps cannot change: 409 until it is undeployed; deploy it again to run the upgraded step.',
    tags: ['flows'],
    params: StepParams,
    errors: [404, 409],
    response: DataEnvelope(FlowStepSchema),
    handler: async ({ params, em }) => {
      const { catalog } = runtime;
      const flow = await lockDraftFlow(em, params.uuid);
      const steps = await stepsOf(em, flow.uuid);
      const step = stepOf(steps, params.step);
      const order = new StepOrder(steps, catalog);
      const what = step.kind;
      const key = keyOf(step);
      const versions = catalog.versions(what, step.appUid, key);
      if (!versions) {
        const gone = catalog.app(step.appUid) ? `app "${step.appUid}" has no ${what} "${key}" any more` : `app "${step.appUid}" is not installed`;
        throw ValidationError.field(`${what}_key`, `${gone}: there is nothing to upgrade to (delete the step)`);
      }
      const newest = versions.supported[versions.supported.length - 1];
      if (step.definitionVersion === newest) return { data: stepJson(step, order, await loadNamed(em, runtime, steps)) };
      if (step.definitionVersion > newest) {
        throw ValidationError.field(`${what}.version`, `the step has version ${step.definitionVersion} and the app’s newest is ${newest}: a step is never downgraded`);
      }

      // A hook trigger's members were derived from its URL: the step keeps them, whatever the migration does.
      const hook = what === 'trigger' ? (versions.newest as FlowTriggerDefinition).hook : undefined;
      const hookKeys = new Set(hook ? Object.keys(hook.config('')) : []);
      const own = Object.fromEntries(Object.entries(step.config).filter(([member]) => !hookKeys.has(member)));
      let config: Record<string, unknown>;
      try {
        config = upgradeConfig(versions, own, step.definitionVersion);
      } catch (error) {
        throw ValidationError.field('config', `the app could not upgrade it from version ${step.definitionVersion} to ${newest}: ${messageOf(error)}`);
      }
      for (const member of hookKeys) if (member in step.config) config[member] = step.config[member];
      const problems = validateConfig(versions.newest.input, config);
      if (Object.keys(problems).length > 0) {
        throw new ValidationError(problems, `Upgraded to version ${newest}, the step’s config does not validate (${summarize(problems)}): nothing changed`);
      }

      step.config = config;
      step.definitionVersion = newest;
      return { data: (await saved(em, runtime, flow, order, step))! };
    },
  });
