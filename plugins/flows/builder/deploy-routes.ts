import { DataEnvelope, defineRoute, type AnyRoute } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';
import { deploy, undeploy } from './deployment';
import { renderFlow } from './flow-view';
import { FlowParams, FlowSchema } from './schemas';
import { findFlow } from './step-order';

const tags = ['flows'];

/** Deploying a flow (draft -> live) and undeploying it (live -> draft). */
export const deployRoutes = (runtime: FlowsRuntime): AnyRoute[] => [
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/:uuid/deploy',
    summary: 'Deploy a flow (draft -> live)',
    description:
      'Snapshots the flow into a new immutable version (`live_version`, numbered 1, 2, ... per flow) and starts its trigger: from now on its events ' +
      'start executions of that version, and later edits never change it. 422 when the flow has no trigger or a step is not `ready` ' +
      '(`errors` names each by position: `steps.3`). 409 when the flow is already live. While live, its steps cannot change.',
    tags,
    params: FlowParams,
    errors: [404, 409],
    response: DataEnvelope(FlowSchema),
    handler: async ({ params, em, tenant }) => {
      const flow = await findFlow(em, params.uuid, { lock: true });
      await deploy(runtime, em, tenant, flow);
      return renderFlow(em, runtime, flow);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/:uuid/undeploy',
    summary: 'Undeploy a flow (live -> draft)',
    description:
      'Stops the trigger: no new executions start. The version stays as the history of the executions that ran it; executions already queued or ' +
      'running are not cancelled. The flow is a `draft` again and its steps can be edited. Undeploying a draft flow changes nothing (200).',
    tags,
    params: FlowParams,
    errors: [404],
    response: DataEnvelope(FlowSchema),
    handler: async ({ params, em, tenant }) => {
      const flow = await findFlow(em, params.uuid, { lock: true });
      await undeploy(runtime, em, tenant, flow);
      await em.flush();
      return renderFlow(em, runtime, flow);
    },
  }),
];
