import crypto from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import { DataEnvelope, DeletedEnvelope, NotFoundError, ValidationError, defineRoute, deleted, readRoute, type AnyRoute, type FieldErrors } from '../../../core';
import { versionOf } from '../app/definition-versions';
import type { FlowTriggerDefinition } from '../app/flow-app';
import { FlowStep, type Flow } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { storeReferences } from '../model/references';
import { descendants } from '../model/step-tree';
import { loadNamed, stepJson, storeStatuses, type FlowStepJson } from './flow-view';
import { FlowStepSchema, StepCreateBody, StepParams, StepPatchBody, FlowParams, type StepCreate } from './schemas';
import { StepOrder, findFlow, lockDraftFlow, stepsOf } from './step-order';
import { addError, checkBindings, insertAt, placeAction } from './step-rules';

const tags = ['flows'];

const PLACEMENT =
  'The server owns `uuid` and `position`. A new action is appended to the top-level chain, or, with `parent_step_uuid` (a branching step such as ' +
  '`if_condition`) and `branch_key`, to the end of that branch. `insert_after_step_uuid` puts it right after that step, in that step’s chain; with ' +
  '`parent_step_uuid` it may be the parent itself (the new step comes first in the branch) or a step of that branch. Steps after it move one down.';

const REFERENCES =
  '`{{stepN.path}}` in any string of `config` refers to an earlier step’s output: it must name a step before this one (a later or missing step is a 422 ' +
  'at `config.<member>`), and not one in another branch of a branching step above this one. References follow their step: when steps are inserted or ' +
  'deleted they read under the step’s new number; one whose step was deleted reads `{{deleted_step.path}}` and keeps the step a `draft`.';

const LIVE = 'A live flow’s steps cannot change: 409 until it is undeployed (`POST /api/v1/flow/{uuid}/undeploy`).';

/** Where this tenant's hooks are addressed: as the client addressed the server (protocol and host, honouring the proxy headers when TRUST_PROXY is set). */
const hookUrl = (req: Request, token: string) => `${req.protocol}://${req.host}/api/v1/hooks/${token}`;

/** A hook trigger's config members, derived from its URL (`hook_url`); none for other steps. */
function hookMembers(trigger: FlowTriggerDefinition | undefined, req: Request, token: string | null): Record<string, unknown> {
  return trigger?.hook && token ? trigger.hook.config(hookUrl(req, token)) : {};
}

/** The config a client sent, without the members it may not set. */
const withoutMembers = (config: Record<string, unknown>, readOnly: Record<string, unknown>) => Object.fromEntries(Object.entries(config).filter(([key]) => !(key in readOnly)));

/** After a structural edit: every step's status as the flow now stands, the flow touched, everything flushed; answers with `step`. */
export async function saved(em: EntityManager, runtime: FlowsRuntime, flow: Flow, order: StepOrder, step: FlowStep | null): Promise<FlowStepJson | null> {
  const named = await loadNamed(em, runtime, order.steps);
  storeStatuses(order, named);
  flow.updatedAt = new Date();
  await em.flush();
  return step ? stepJson(step, order, named) : null;
}

export function stepOf(steps: readonly FlowStep[], stepUuid: string): FlowStep {
  const step = steps.find((candidate) => candidate.uuid === stepUuid);
  if (!step) throw new NotFoundError('Step not found');
  return step;
}

/** A flow's steps: add, read, change, delete (tests and upgrades have routes of their own). */
export const stepRoutes = (runtime: FlowsRuntime): AnyRoute[] => [createStep(runtime), readStep(runtime), updateStep(runtime), deleteStep(runtime)];

/** Rules 1-7 and the step limit, all problems at once; the new step's kind and place. */
async function plan(runtime: FlowsRuntime, em: EntityManager, body: StepCreate, order: StepOrder) {
  const { catalog } = runtime;
  const maxSteps = runtime.config.get('maxStepsPerFlow');
  const errors: FieldErrors = {};
  const kind = body.trigger_key ? 'trigger' : 'action';
  const key = (kind === 'trigger' ? body.trigger_key : body.action_key) ?? '';
  if (body.trigger_key && body.action_key) addError(errors, 'action_key', 'give trigger_key (the flow’s trigger) or action_key (an action), not both');
  else if (!key) addError(errors, 'action_key', 'is required: give trigger_key (the flow’s trigger) or action_key (an action)');

  const app = catalog.app(body.app_uid);
  if (!app) addError(errors, 'app_uid', `no app "${body.app_uid}" is installed (GET /api/v1/flow/apps lists them)`);
  else {
    const known = kind === 'trigger' ? app.triggers : app.actions;
    if (!known?.length) addError(errors, `${kind}_key`, `app "${app.uid}" has no ${kind}s (supports_${kind} is false)`);
    else if (key && !known.some((definition) => definition.key === key)) addError(errors, `${kind}_key`, `app "${app.uid}" has no ${kind} "${key}"`);
    await checkBindings(em, runtime, app, kind, { appConnectionUuid: body.app_connection_uuid ?? null, agentUuid: body.agent_uuid ?? null }, errors);
  }

  let placement = null;
  if (kind === 'trigger') {
    if (order.trigger()) addError(errors, 'trigger_key', `the flow already has a trigger (${order.trigger()!.appUid}.${order.trigger()!.triggerKey}, step 1): a flow has one`);
    for (const member of ['insert_after_step_uuid', 'parent_step_uuid', 'branch_key'] as const) {
      if (body[member] != null) addError(errors, member, 'must be null for a trigger: the trigger is always step 1');
    }
  } else {
    if (!order.trigger()) addError(errors, 'action_key', 'the flow has no trigger yet: add its trigger first (a flow starts with its trigger)');
    placement = placeAction(body, order, errors);
  }
  if (order.steps.length >= maxSteps) addError(errors, 'steps', `a flow has at most ${maxSteps} steps`);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { kind, key, placement } as const;
}

const createStep = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/:uuid/steps',
    summary: 'Add a step',
    description:
      'A trigger when the body has `trigger_key`, an action when it has `action_key` (exactly one). Rules: (1) the server places the step, see below; ' +
      '(2) a trigger needs a flow without one and an app with that trigger, and is always step 1; (3) an action needs a flow that has its trigger and an ' +
      'app with that action; (4) a `connect` app needs `app_connection_uuid`, a connection of this tenant and this app; (5) a `builtin` app takes none; ' +
      '(6) actions of apps that act on an agent need `agent_uuid`, an agent of this tenant; (7) a branch child needs `parent_step_uuid` naming a ' +
      'branching step of this flow and `branch_key` one of its branches; (8) ' + LIVE + ' A 422 names every problem at once. ' +
      PLACEMENT + ' ' + REFERENCES + ' A hook trigger (the webhook app’s) gets a secret URL; its members of `config` (`hook_url`) are read-only. ' +
      'The step gets the newest version of its trigger or action (`trigger.version`, `action.version`) and keeps it until upgraded. ' +
      'A flow has at most `maxStepsPerFlow` steps (config, default 200).',
    tags,
    params: FlowParams,
    body: StepCreateBody,
    status: 201,
    errors: [404, 409],
    response: DataEnvelope(FlowStepSchema),
    handler: async ({ params, body, em, req }) => {
      const flow = await lockDraftFlow(em, params.uuid);
      const steps = await stepsOf(em, flow.uuid);
      const before = new StepOrder(steps, runtime.catalog);
      const { kind, key, placement } = await plan(runtime, em, body, before);

      // Persisted only once its config is stored: a 422 below leaves nothing to flush.
      const step = em.create(
        FlowStep,
        {
          flowUuid: flow.uuid,
          kind,
          appUid: body.app_uid,
          triggerKey: kind === 'trigger' ? key : null,
          actionKey: kind === 'action' ? key : null,
          agentUuid: body.agent_uuid ?? null,
          appConnectionUuid: body.app_connection_uuid ?? null,
          continueOnError: body.continue_on_error ?? false,
          ord: 0,
        },
        { persist: false },
      );
      if (placement) insertAt(step, placement, before);
      const trigger = kind === 'trigger' ? runtime.catalog.trigger(body.app_uid, key) : undefined;
      // A new step takes the newest version (plan() found the key).
      step.definitionVersion = versionOf(trigger ?? runtime.catalog.action(body.app_uid, key)!);
      if (trigger?.hook) step.hookToken = crypto.randomBytes(32).toString('base64url');

      // References resolve against the numbers the flow has with the new step in place.
      const order = new StepOrder([...steps, step], runtime.catalog);
      const hook = hookMembers(trigger, req, step.hookToken);
      const stored = storeReferences(withoutMembers(body.config ?? {}, hook), order.resolverFor(step));
      if (Object.keys(stored.errors).length > 0) throw new ValidationError(stored.errors);
      step.config = { ...stored.config, ...hook };

      em.persist(step);
      return { data: (await saved(em, runtime, flow, order, step))! };
    },
  });

const readStep = (runtime: FlowsRuntime) =>
  readRoute({
    path: '/api/v1/flow/:uuid/steps/:step',
    summary: 'Read a step',
    tags,
    params: StepParams,
    resource: FlowStepSchema,
    read: async ({ params, em }) => {
      const flow = await findFlow(em, params.uuid);
      const steps = await stepsOf(em, flow.uuid);
      const step = stepOf(steps, params.step);
      return stepJson(step, new StepOrder(steps, runtime.catalog), await loadNamed(em, runtime, steps));
    },
  });

const updateStep = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/flow/:uuid/steps/:step',
    summary: 'Change a step',
    description:
      '`config` (replaced as a whole), `agent_uuid`, `app_connection_uuid` and `continue_on_error` change; members absent stay. The step’s app, ' +
      'trigger or action and place do not change (delete it and add another); other members of the step as read are ignored. Rules 4-6 are checked ' +
      'again with the step’s resulting connection and agent. `config` is checked against the input schema of the step’s version (`action.version`, ' +
      '`trigger.version`), which does not change here: `POST .../steps/{step}/upgrade` moves the step to the newest. ' + REFERENCES + ' ' + LIVE,
    tags,
    params: StepParams,
    body: StepPatchBody,
    errors: [404, 409],
    response: DataEnvelope(FlowStepSchema),
    handler: async ({ params, body, em, req }) => {
      const flow = await lockDraftFlow(em, params.uuid);
      const steps = await stepsOf(em, flow.uuid);
      const step = stepOf(steps, params.step);
      const order = new StepOrder(steps, runtime.catalog);
      const errors: FieldErrors = {};
      const binding = {
        appConnectionUuid: body.app_connection_uuid !== undefined ? body.app_connection_uuid : step.appConnectionUuid,
        agentUuid: body.agent_uuid !== undefined ? body.agent_uuid : step.agentUuid,
      };
      const app = runtime.catalog.app(step.appUid);
      if (app) await checkBindings(em, runtime, app, step.kind, binding, errors);
      let config = step.config;
      if (body.config !== undefined) {
        // A hook trigger keeps the members it was given when created, whatever the client sent.
        const hook = hookMembers(step.triggerKey ? runtime.catalog.trigger(step.appUid, step.triggerKey) : undefined, req, step.hookToken);
        const kept = Object.fromEntries(Object.keys(hook).map((key) => [key, step.config[key]]));
        const stored = storeReferences(withoutMembers(body.config, hook), order.resolverFor(step));
        Object.assign(errors, stored.errors);
        config = { ...stored.config, ...kept };
      }
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);

      step.appConnectionUuid = binding.appConnectionUuid;
      step.agentUuid = binding.agentUuid;
      step.config = config;
      if (body.continue_on_error !== undefined) step.continueOnError = body.continue_on_error;
      return { data: (await saved(em, runtime, flow, order, step))! };
    },
  });

const deleteStep = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/flow/:uuid/steps/:step',
    summary: 'Delete a step',
    description:
      'Deleting a branching step deletes its branch children too (and theirs). Steps after it move up; references to a deleted step read ' +
      '`{{deleted_step.path}}` and keep their step a `draft` until changed. The trigger may be deleted and added again (it becomes step 1). ' + LIVE,
    tags,
    params: StepParams,
    errors: [404, 409],
    response: DeletedEnvelope,
    handler: async ({ params, em }) => {
      const flow = await lockDraftFlow(em, params.uuid);
      const steps = await stepsOf(em, flow.uuid);
      const step = stepOf(steps, params.step);
      const removed = [step, ...descendants(step.uuid, steps)];
      for (const gone of removed) em.remove(gone);
      await saved(em, runtime, flow, new StepOrder(steps.filter((candidate) => !removed.includes(candidate)), runtime.catalog), null);
      const children = removed.length - 1;
      return deleted(children > 0 ? `Step deleted, with its ${children} branch step${children === 1 ? '' : 's'}` : 'Step deleted');
    },
  });
