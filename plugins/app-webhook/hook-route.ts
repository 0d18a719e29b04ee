import { NotFoundError, Type, Uuid, defineRoute, type HttpService } from '../../core';
import type { FlowTriggers } from '../flows';
import { selectedHeaders } from './webhook-app';

const HookAccepted = Type.Object({ success: Type.Literal(true), data: Type.Object({ execution_uuid: Uuid({ description: 'Follow it at `GET /api/v1/flow/{uuid}/executions/{execution}`' }) }) });

export function registerHookRoute(http: HttpService, triggers: FlowTriggers): void {
  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/hooks/:token',
      summary: 'Start a flow through its webhook trigger',
      description:
        'The `hook_url` of a `webhook.catch_hook` trigger step. ' +
        'While the flow is live, any JSON body (up to HTTP_BODY_LIMIT, 1 MiB by default; larger is 413, a body that is not JSON is 415) starts one execution and ' +
        'answers 202 with its uuid: the execution is recorded and queued before the answer, and runs shortly after. ' +
        'An unknown token, a token of another tenant, or a flow that is not live (never deployed, undeployed, deleted) answers 404.',
      tags: ['flows'],
      auth: 'tenant-host',
      params: Type.Object({ token: Type.String({ description: 'The last segment of the step’s `hook_url`; any other text is an unknown token (404)' }) }),
      body: Type.Unknown({ description: 'Any JSON value; the trigger’s output `body`' }),
      status: 202,
      errors: [404],
      response: HookAccepted,
      handler: async ({ params, req }) => {
        // The body as sent (the route's `body` reads a JSON `null` as `{}`); no body at all is `{}`.
        const body: unknown = req.body === undefined ? {} : req.body;
        const started = await triggers.fireHook(params.token, { body, query: req.query, headers: selectedHeaders(req.headers) });
        if (!started) throw new NotFoundError('No live flow listens on this hook');
        return { success: true as const, data: { execution_uuid: started.executionUuid } };
      },
    }),
  );
}
