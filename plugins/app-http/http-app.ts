import { Type, type EgressRequestOptions, type EgressResponse } from '../../core';
import { defineAction, defineFlowApp } from '../flows';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2b6cb0" stroke-width="2"><circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18"/></svg>',
  ).toString('base64');

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** RFC 9110 token characters. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$";
const QueryValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

const RequestInput = Type.Object(
  {
    method: Type.Unsafe<(typeof METHODS)[number]>({ type: 'string', enum: [...METHODS], description: 'The HTTP method' }),
    url: Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 8192, description: 'An http(s) URL; private and loopback addresses are refused unless the operator allows them (EGRESS_ALLOW_CIDRS)' }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: HEADER_NAME }), Type.String({ maxLength: 8192, pattern: '^[^\\r\\n]*$' }), {
        additionalProperties: false,
        maxProperties: 100,
        description: 'Request headers by name. An `Idempotency-Key` given here replaces the one the step sends by default.',
      }),
    ),
    query: Type.Optional(
      Type.Record(Type.String(), Type.Union([QueryValue, Type.Array(QueryValue, { maxItems: 100 })]), {
        maxProperties: 100,
        description: 'Added to the URL’s query string; a list repeats the parameter',
      }),
    ),
    body: Type.Optional(
      Type.Unknown({
        description:
          'Sent as it is when it is a text (with `Content-Type: text/plain; charset=utf-8` unless `headers` sets one), as JSON otherwise (`Content-Type: application/json` unless set). Not sent with GET or HEAD.',
      }),
    ),
    fail_on_error_status: Type.Optional(
      Type.Boolean({
        description: 'A response with status 400 or more fails the step (the default, `true`). With `false`, it is the step’s output like any other response, for a later `if_condition` on `status`.',
      }),
    ),
  },
  { additionalProperties: false },
);

const JSON_TYPE = /^(application|text)\/([a-z0-9.+-]*\+)?json(\s*;|$)/i;

/** The response body: parsed when the server says it is JSON (and it parses), else its text; null when empty. */
function bodyOf(response: EgressResponse): unknown {
  if (response.body.length === 0) return null;
  const text = response.text();
  const type = response.headers['content-type'];
  if (typeof type === 'string' && JSON_TYPE.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function headersOf(response: EgressResponse): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(response.headers).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined));
}

/** What egress sends for the body member; a header set by the user wins over the content type chosen here. */
function encodedBody(body: unknown, headers: Record<string, string>): Pick<EgressRequestOptions, 'body' | 'headers'> {
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (typeof body === 'string') return { body, headers: hasType ? headers : { ...headers, 'content-type': 'text/plain; charset=utf-8' } };
  return { body: JSON.stringify(body), headers: hasType ? headers : { ...headers, 'content-type': 'application/json' } };
}

const request = defineAction({
  key: 'request',
  name: 'HTTP request',
  description:
    'Calls a URL and outputs `{status, headers, body}`, the body parsed when the response is JSON. ' +
    'Every call carries an `Idempotency-Key` that stays the same when the step is retried or resumed, so a server that honours it acts once. ' +
    'A status of 400 or more fails the step unless `fail_on_error_status` is false; a timeout, a refused address or a too large response always fails it.',
  input: RequestInput,
  outputSample: { status: 200, headers: { 'content-type': 'application/json' }, body: { id: 42 } },
  // Calls any URL: the engine runs it with no transaction open.
  external: true,
  async run({ input, egress, idempotencyKey }) {
    const headers: Record<string, string> = Object.create(null); // header names come from the flow's input
    let key = idempotencyKey;
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      if (name.toLowerCase() === 'idempotency-key') key = value;
      else headers[name] = value;
    }
    const withBody = input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD';
    const response = await egress.request(input.url, {
      method: input.method,
      query: input.query,
      idempotencyKey: key,
      ...(withBody ? encodedBody(input.body, headers) : { headers }),
    });
    const output = { status: response.status, headers: headersOf(response), body: bodyOf(response) };
    if (response.status >= 400 && input.fail_on_error_status !== false) {
      const text = typeof output.body === 'string' ? output.body : JSON.stringify(output.body);
      throw new Error(`HTTP ${response.status} from ${new URL(response.url).host}${text ? `: ${text.slice(0, 300)}` : ''}`);
    }
    return output;
  },
});

/** The `http` app: one action that calls any HTTP API through egress (builtin, no connection). */
export const httpApp = defineFlowApp({
  uid: 'http',
  name: 'HTTP',
  description: 'Call any HTTP API',
  icon: ICON,
  category: 'builtin',
  actions: [request],
});
