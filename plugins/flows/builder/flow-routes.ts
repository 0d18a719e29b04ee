import { DataEnvelope, PageQuery, Type, defineRoute, deleteRoute, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import { Flow } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { undeploy } from './deployment';
import { renderFlow, renderFlows } from './flow-view';
import { FlowCreateBody, FlowParams, FlowPatchBody, FlowSchema } from './schemas';
import { findFlow } from './step-order';

const tags = ['flows'];

/** A flow's own routes: create, list, read, rename, delete. */
export const flowRoutes = (runtime: FlowsRuntime): AnyRoute[] => [createFlow(runtime), listFlows(runtime), readFlow(runtime), updateFlow(runtime), deleteFlow(runtime)];

const createFlow = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow',
    summary: 'Create a flow',
    description: 'A new flow is a `draft` with no steps: add its trigger, then its actions, with `POST /api/v1/flow/{uuid}/steps`. 429 when the tenant has all the flows its `flows` quota allows.',
    tags,
    body: FlowCreateBody,
    status: 201,
    response: DataEnvelope(FlowSchema),
    errors: [429],
    handler: async ({ body, em }) => {
      await runtime.quotas.check(em, 'flows', async () => (await em.count(Flow, {})) + 1);
      const flow = em.create(Flow, { name: body.name, description: body.description ?? '' });
      await em.flush();
      return renderFlow(em, runtime, flow);
    },
  });

const listFlows = (runtime: FlowsRuntime) =>
  listRoute({
    path: '/api/v1/flow',
    summary: 'List flows, newest first',
    description: 'Deleted flows are not listed. Each flow comes with its steps.',
    tags,
    query: PageQuery({ status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('live')], { description: 'Only flows in this status' })) }),
    item: FlowSchema,
    page: async ({ query, em }) => {
      const [flows, total] = await em.findAndCount(
        Flow,
        { deletedAt: null, ...(query.status ? { status: query.status } : {}) },
        { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) },
      );
      return [await renderFlows(em, runtime, flows), total];
    },
  });

const readFlow = (runtime: FlowsRuntime) =>
  readRoute({
    path: '/api/v1/flow/:uuid',
    summary: 'Read a flow with its steps',
    description: 'A deleted flow answers 404.',
    tags,
    params: FlowParams,
    resource: FlowSchema,
    read: async ({ params, em }) => (await renderFlow(em, runtime, await findFlow(em, params.uuid))).data,
  });

const updateFlow = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/flow/:uuid',
    summary: 'Rename a flow or change its description',
    description:
      'Only `name` and `description` change (other members of the flow as read are ignored, steps included); allowed while the flow is live, ' +
      'since neither changes what runs. Steps change through the step routes.',
    tags,
    params: FlowParams,
    body: FlowPatchBody,
    errors: [404],
    response: DataEnvelope(FlowSchema),
    handler: async ({ params, body, em }) => {
      const flow = await findFlow(em, params.uuid, { lock: true });
      if (body.name !== undefined) flow.name = body.name;
      if (body.description !== undefined) flow.description = body.description;
      await em.flush();
      return renderFlow(em, runtime, flow);
    },
  });

const deleteFlow = (runtime: FlowsRuntime) =>
  deleteRoute({
    path: '/api/v1/flow/:uuid',
    summary: 'Delete a flow (soft delete)',
    description:
      'The flow leaves the list at once and a later read answers 404. A live flow is undeployed first, so its trigger stops starting executions; ' +
      'executions already queued or running are not cancelled and keep their history.',
    tags,
    params: FlowParams,
    message: 'Flow deleted',
    remove: async ({ params, em, tenant }) => {
      const flow = await findFlow(em, params.uuid, { lock: true });
      await undeploy(runtime, em, tenant, flow);
      flow.deletedAt = new Date();
      await em.flush();
    },
  });
