import path from 'node:path';
import { configRef, definePlugin, Type, type Egress } from '../../../../core';
import { Auth, Options, contributeFlowApp, defineAction, defineFlowApp, defineOptions, defineTrigger, flowApps, type CredentialsOf, type FlowConnectionValue } from '../../../../plugins/flows';

export const AGENTS_PLUGIN = path.resolve(__dirname, '../../../../plugins/agents');
export const FLOWS_PLUGIN = path.resolve(__dirname, '../../../../plugins/flows');

/** An API key plus the CRM's own address; a connection is tested by asking the CRM who the key belongs to. */
export const crmAuth = Auth.apiKey({
  description: 'The API key from the CRM’s settings page',
  extra: { base_url: Type.String({ format: 'uri' }) },
  examples: [{ api_key: 'example-api-key', base_url: 'https://crm.example.com' }],
  async test({ base_url, api_key }, { egress }) {
    const res = await egress.request(`${base_url}/me`, { headers: { authorization: `Bearer ${api_key}` }, retries: 0 });
    if (res.status === 401) return { valid: false, message: 'The CRM does not know this API key' };
    if (res.status !== 200) throw new Error(`the CRM answered ${res.status}`);
    return { valid: true };
  },
});

type CrmCredentials = CredentialsOf<typeof crmAuth>;

/** The CRM's API as the test server plays it: its own answers, bearer-authenticated with the connection's key. */
async function crmGet(context: { egress: Egress; connection: FlowConnectionValue<CrmCredentials> | null }, resource: string, query: Record<string, string>) {
  // Typed from crmAuth: no cast.
  const { base_url, api_key } = context.connection!.credentials;
  return context.egress.request(`${base_url}/${resource}`, { query, headers: { authorization: `Bearer ${api_key}` }, retries: 0 });
}

const Module = Options('modules', {}, Type.String({ description: 'The module' }));

/** A `connect` app whose option lists call its service (a local HTTP server the test starts). */
export const crmApp = defineFlowApp({
  uid: 'fixture_crm',
  name: 'Fixture CRM',
  description: 'Contacts and deals in a customer relationship manager',
  icon: 'https://crm.example.com/icon.png',
  category: 'connect',
  auth: crmAuth,
  triggers: [
    defineTrigger({
      key: 'record_created',
      name: 'Record created',
      description: 'A record was added to a module',
      input: Type.Object({ module: Module }, { additionalProperties: false }),
      outputSample: { id: 'r1', name: 'Ada Lovelace' },
    }),
  ],
  actions: [
    defineAction({
      key: 'create_record',
      name: 'Create a record',
      description: 'Adds a record to a module',
      input: Type.Object({ module: Module, fields: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false }),
      outputSample: { id: 'r2' },
      run: () => ({ id: 'r2' }),
    }),
    defineAction({
      auth: crmAuth,
      key: 'tag_records',
      name: 'Tag records',
      description: 'Tags records of a module',
      input: Type.Object(
        {
          module: Module,
          // The records of the module chosen above: the list depends on `module`.
          record_ids: Options('records', { params: { module: '{{config.module}}' } }, Type.Array(Type.String(), { minItems: 1 })),
          tag: Type.String(),
        },
        { additionalProperties: false },
      ),
      outputSample: { tagged: 1 },
      run: ({ input, connection }) => ({ tagged: input.record_ids.length, base_url: connection?.credentials.base_url ?? null }),
    }),
  ],
  options: [
    // The whole list at once: the server filters and pages it.
    defineOptions({
      auth: crmAuth,
      kind: 'modules',
      params: Type.Object({}),
      async load(context) {
        const res = await crmGet(context, 'modules', {});
        // A key the CRM refuses is something the user fixes: a state, not a failure.
        if (res.status === 401) return { state: 'unavailable', message: 'The CRM refused the API key of this connection' };
        if (res.status !== 200) throw new Error(`the CRM answered ${res.status}`);
        return { options: res.json<Array<{ id: string; name: string }>>().map((module) => ({ label: module.name, value: module.id })) };
      },
    }),
    // The CRM searches and pages its records itself.
    defineOptions({
      auth: crmAuth,
      kind: 'records',
      params: Type.Object({ module: Type.String({ minLength: 1 }) }),
      searchable: true,
      async load(context) {
        const query: Record<string, string> = { module: context.params.module };
        if (context.search !== null) query.search = context.search;
        if (context.cursor !== null) query.cursor = context.cursor;
        const res = await crmGet(context, 'records', query);
        if (res.status !== 200) throw new Error(`the CRM answered ${res.status}`);
        const body = res.json<{ items: Array<{ id: string; name: string }>; next: string | null }>();
        return { options: body.items.map((record) => ({ label: record.name, value: record.id })), nextCursor: body.next };
      },
    }),
  ],
});

/** A `connect` app with no list operation: the spec's bot messaging case. */
export const chatApp = defineFlowApp({
  uid: 'fixture_chat',
  name: 'Fixture Chat',
  description: 'Sends messages through a chat bot',
  icon: 'data:image/svg+xml;base64,PHN2Zy8+',
  category: 'connect',
  auth: Auth.custom(Type.Object({ bot_token: Type.String({ minLength: 1 }) }, { additionalProperties: false, examples: [{ bot_token: 'example-bot-token' }] })),
  actions: [
    defineAction({
      key: 'send_message',
      name: 'Send a message',
      description: 'Posts a message to a chat',
      input: Type.Object({ chat_id: Type.String(), text: Type.String() }, { additionalProperties: false }),
      outputSample: { message_id: 'm1' },
      run: () => ({ message_id: 'm1' }),
    }),
  ],
});

/** 250 colours, so a static list spans three pages of 100. */
export const COLORS = Array.from({ length: 250 }, (_, i) => ({ label: `Colour ${String(i + 1).padStart(3, '0')}`, value: `c${i + 1}` }));

/** A list the tests change between two pages: the server's cursor must go on after the last option sent. */
export const SWATCHES: Array<{ label: string; value: string }> = [];

/** A `builtin` app with static option lists. */
export const paletteApp = defineFlowApp({
  uid: 'fixture_palette',
  name: 'Fixture Palette',
  description: 'Picks colours, with no outside service',
  icon: 'https://palette.example.com/icon.png',
  category: 'builtin',
  actions: [
    defineAction({
      key: 'branch_on_colour',
      name: 'Branch on a colour',
      description: 'Runs the warm or the cold children',
      input: Type.Object({ color: Type.String() }, { additionalProperties: false }),
      outputSample: { warm: true },
      branches: ['warm', 'cold'],
      pure: true,
      run: () => ({ warm: true }),
    }),
  ],
  options: [
    defineOptions({ kind: 'colors', description: 'Every colour', params: Type.Object({}), load: () => ({ options: [...COLORS, { label: 'Crimson Red', value: 'crimson' }] }) }),
    defineOptions({
      kind: 'shades',
      params: Type.Object({ color: Type.String({ minLength: 1 }), depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })) }, { additionalProperties: false }),
      load: ({ params }) => ({ options: Array.from({ length: params.depth ?? 1 }, (_, i) => ({ label: `${params.color} ${i + 1}`, value: `${params.color}-${i + 1}` })) }),
    }),
    defineOptions({ kind: 'swatches', params: Type.Object({}), load: () => ({ options: [...SWATCHES] }) }),
    defineOptions({ kind: 'exploding', params: Type.Object({}), load: () => Promise.reject(new Error('the palette is on fire')) }),
    defineOptions({ kind: 'malformed', params: Type.Object({}), load: () => ({ options: [{ label: 'no value' }] }) as never }),
  ],
});

/** The mail fixture's plugin config: where its OAuth client is read. */
const mailConfig = {
  mailClientId: { doc: 'OAuth client id', format: String, default: '', env: 'FIXTURE_MAIL_CLIENT_ID' },
  mailClientSecret: { doc: 'OAuth client secret', format: String, default: '', env: 'FIXTURE_MAIL_CLIENT_SECRET', sensitive: true },
};

/** A `connect` app through OAuth 2.0: the catalog shows what it asks for, never the client credentials. */
export const mailApp = defineFlowApp({
  deps: { config: configRef(mailConfig) },
  uid: 'fixture_mail',
  name: 'Fixture Mail',
  description: 'Sends e-mail from the user’s mailbox',
  icon: 'https://mail.example.com/icon.png',
  category: 'connect',
  auth: Auth.oauth2({
    authorizeUrl: 'https://mail.example.com/oauth/authorize',
    tokenUrl: 'https://mail.example.com/oauth/token',
    scopes: ['mail.send', 'mail.read'],
    pkce: true,
    clientIdKey: 'mailClientId',
    clientSecretKey: 'mailClientSecret',
  }),
  actions: [
    defineAction({
      key: 'send_mail',
      name: 'Send an e-mail',
      description: 'Sends an e-mail',
      input: Type.Object({ to: Type.String(), subject: Type.String() }, { additionalProperties: false }),
      outputSample: { id: 'm1' },
      run: () => ({ id: 'm1' }),
    }),
  ],
});

/** A trigger-only `builtin` app. */
export const inboxApp = defineFlowApp({
  uid: 'fixture_inbox',
  name: 'Fixture Inbox',
  description: 'Starts flows when a message arrives',
  icon: 'https://inbox.example.com/icon.png',
  category: 'builtin',
  triggers: [
    defineTrigger({
      key: 'message_received',
      name: 'Message received',
      description: 'A message arrived',
      input: Type.Object({}, { additionalProperties: false }),
      outputSample: { from: 'ada@example.com' },
    }),
  ],
});

export const fixtureApps = definePlugin({
  id: 'flows-fixture-apps',
  dependsOn: ['flows'],
  contributes: [crmApp, chatApp, paletteApp, inboxApp].map((app) => flowApps.add(app)),
});

/** The OAuth app comes with its plugin's config, which it names in its deps. */
export const mailFixture = definePlugin({ id: 'flows-fixture-mail', dependsOn: ['flows'], config: mailConfig, ...contributeFlowApp(mailApp) });

export const CATALOG_PLUGINS = [AGENTS_PLUGIN, FLOWS_PLUGIN, fixtureApps, mailFixture];
