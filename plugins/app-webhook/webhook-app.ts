import type { IncomingHttpHeaders } from 'node:http';
import { Type } from '../../core';
import { defineFlowApp, defineTrigger } from '../flows';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#c05621" stroke-width="2"><path d="M18 16.98h-5.99c-1.1 0-1.95.94-2.48 1.9A4 4 0 0 1 2 17c.01-.7.2-1.4.57-2"/><path d="m6 17 3.13-5.78c.53-.97.1-2.18-.5-3.1a4 4 0 1 1 6.89-4.06"/><path d="m12 6 3.13 5.73C15.66 12.7 16.9 13 18 13a4 4 0 0 1 0 8"/></svg>',
  ).toString('base64');

/** Header names that may carry a credential: never copied into the trigger's output (and so never into execution history). */
const SECRET_LOOKING = /auth|cookie|token|secret|key|pass|session|credential|signature/i;

/**
 * The request headers a flow sees: `content-type`, `user-agent`, and every `x-*` header
 * whose name does not look like it carries a credential (`authorization`, `cookie`,
 * `x-api-key`, `x-auth-token`, `x-hub-signature`, ... are left out).
 */
export function selectedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const selected: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name === 'content-type' || name === 'user-agent' || (name.startsWith('x-') && !SECRET_LOOKING.test(name))) {
      selected[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return selected;
}

const catchHook = defineTrigger({
  key: 'catch_hook',
  name: 'Catch hook',
  description:
    'Starts the flow when JSON is POSTed to the step’s `hook_url` while the flow is live. The output is `{body, query, headers}`: the JSON body ' +
    '(`{}` when the request has none), the query string, and the headers `content-type`, `user-agent` and `x-*` (those whose name looks like a ' +
    'credential, such as `x-api-key`, left out). The URL is the secret: anyone who has it can start the flow.',
  input: Type.Object(
    {
      hook_url: Type.Optional(
        Type.String({ format: 'uri', readOnly: true, description: 'Set by the server when the step is created: `{tenant base url}/api/v1/hooks/{token}`. Read-only.' }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSample: {
    body: { order_id: 1001, total: 99.5 },
    query: { source: 'shop' },
    headers: { 'content-type': 'application/json', 'user-agent': 'Shop/1.0', 'x-request-id': '5f0c…' },
  },
  hook: { config: (hookUrl) => ({ hook_url: hookUrl }) },
});

/** The `webhook` app: flows started by a POST to their own URL (builtin, no connection). */
export const webhookApp = defineFlowApp({
  uid: 'webhook',
  name: 'Webhook',
  description: 'Start a flow when JSON is posted to its URL',
  icon: ICON,
  category: 'builtin',
  triggers: [catchHook],
});
