import { Component, ReadOnly, SharedKey, Timestamp, Type, Uuid } from '../../../core';

const Category = Type.Union([Type.Literal('builtin'), Type.Literal('connect')], {
  description: '`builtin` apps run inside Switchboard and take no connection; `connect` apps call an outside service through an app connection.',
});

/** A JSON Schema as the catalog shows it, so a client can render a form from it. */
const JsonSchema = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** A trigger's or action's versions, shown with each (DefinitionVersion). */
const Versioning = (what: string) => ({
  version: Type.Integer({ minimum: 1, description: `The newest version: what a new step gets (\`${what}.version\` of a step), and what \`input_schema\` describes` }),
  versions: Type.Array(Type.Integer({ minimum: 1 }), {
    description: `Every version the app still runs, ascending. A step of an older one keeps running it; a step of a version not listed is a draft until upgraded (\`POST /api/v1/flow/{uuid}/steps/{step}/upgrade\`)`,
  }),
});

const INPUT_SCHEMA =
  'JSON Schema of the step’s `config`: the step is `ready` once its config validates against it. A member whose value is picked from one of the app’s ' +
  'option lists carries `x-options: {kind, params, dependsOn}`: load it with `POST /api/v1/flow/apps/{uid}/options` and that `kind` and `params`, where a ' +
  'string `{{config.x}}` stands for the current value of the config member `x`; `dependsOn` names those members (reload the list when one changes; ' +
  'leave it empty while one is unset). On an array, each item is picked from the list.';

/** The spec's "Flow app (catalog item)". */
export const FlowAppSchema = Component(
  'FlowApp',
  Type.Object(
    {
      uid: Type.String({ description: 'The app id steps and connections name (`a-z0-9_`)' }),
      name: Type.String(),
      description: Type.String(),
      icon: Type.String({ description: 'A URL or a data: URI' }),
      category: Category,
      supports_trigger: Type.Boolean({ description: 'The app has at least one trigger' }),
      supports_action: Type.Boolean({ description: 'The app has at least one action' }),
      requires_connection: Type.Boolean({ description: 'Steps of this app need `app_connection_uuid` (true exactly for `connect` apps)' }),
      version: Type.Union([Type.String(), Type.Null()], { description: 'The app’s release (semver), informational: each trigger and action has a version of its own; null when the app declares none' }),
      triggers_count: Type.Integer({ minimum: 0 }),
      actions_count: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false, description: 'An app of the flow studio (the spec’s catalog item). Apps come from installed plugins and are the same for every tenant.' },
  ),
);

export const FlowTriggerSchema = Component(
  'FlowTrigger',
  Type.Object(
    {
      key: Type.String({ description: 'The step’s `trigger_key`' }),
      ...Versioning('trigger'),
      name: Type.String(),
      description: Type.String(),
      input_schema: JsonSchema(INPUT_SCHEMA),
      output_sample: Type.Unknown({ description: 'What the trigger’s output looks like, for `{{step1.path}}` references' }),
    },
    { additionalProperties: false },
  ),
);

export const FlowActionSchema = Component(
  'FlowAction',
  Type.Object(
    {
      key: Type.String({ description: 'The step’s `action_key`' }),
      ...Versioning('action'),
      name: Type.String(),
      description: Type.String(),
      input_schema: JsonSchema(INPUT_SCHEMA),
      output_sample: Type.Unknown({ description: 'What the action’s output looks like, for `{{stepN.path}}` references' }),
      branches: Type.Optional(Type.Array(Type.String(), { description: 'A branching action (`if_condition`): the `branch_key`s its children hang under, in display order' })),
    },
    { additionalProperties: false },
  ),
);

export const FlowOptionListSchema = Component(
  'FlowOptionList',
  Type.Object(
    {
      kind: Type.String({ description: 'The `kind` of `POST /api/v1/flow/apps/{uid}/options`' }),
      description: Type.Union([Type.String(), Type.Null()]),
      params_schema: JsonSchema('JSON Schema of the request’s `params`'),
      searchable: Type.Boolean({ description: 'The app’s service searches and pages this list itself; otherwise the server filters the whole list by `search` and pages it' }),
    },
    { additionalProperties: false },
  ),
);

export const FlowAppAuthSchema = Component(
  'FlowAppAuth',
  Type.Object(
    {
      type: Type.Union([Type.Literal('api_key'), Type.Literal('basic'), Type.Literal('oauth2'), Type.Literal('custom')], {
        description: '`api_key` (credentials `api_key`), `basic` (`username`, `password`), `oauth2` (the tokens: `access_token`, ...), `custom` (the app’s own schema)',
      }),
      description: Type.Union([Type.String(), Type.Null()]),
      schema: JsonSchema('JSON Schema of the `credentials` of `POST /api/v1/flow/connections`'),
      oauth2: Type.Union(
        [
          Type.Object(
            {
              authorize_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the user grants access (null until the operator configures the app’s OAuth client)' }),
              configured: Type.Boolean({ description: 'The operator configured the app’s OAuth client: `POST /api/v1/flow/connections/oauth/start` can begin' }),
              scopes: Type.Array(Type.String(), { description: 'The scopes the app asks for' }),
              pkce: Type.Boolean({ description: 'The authorization sends a PKCE code challenge' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: 'For `oauth2`: what the authorization asks for (the operator’s client credentials are never shown); null otherwise' },
      ),
    },
    { additionalProperties: false, description: 'How a connection of a `connect` app authenticates.' },
  ),
);

export const FlowAppDetailSchema = Component(
  'FlowAppDetail',
  Type.Object(
    {
      ...FlowAppSchema.properties,
      requires_agent: Type.Boolean({ description: 'Action steps of this app need `agent_uuid`' }),
      auth: Type.Union([FlowAppAuthSchema, Type.Null()], { description: 'How a connection of this `connect` app authenticates; null for `builtin` apps' }),
      triggers: Type.Array(FlowTriggerSchema),
      actions: Type.Array(FlowActionSchema),
      options: Type.Array(FlowOptionListSchema, { description: 'The option lists of this app; empty when it has none (the options route then answers 422)' }),
    },
    { additionalProperties: false, description: 'A flow app with everything building a step of it needs.' },
  ),
);

export const CatalogQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Only apps whose name, description or uid contains this (case-insensitive)' })),
    category: Type.Optional(Category),
  },
  { additionalProperties: false },
);

export const AppParams = Type.Object({ uid: SharedKey('The app’s `uid` (a catalog entry shared by every tenant, not a tenant’s resource)') });

/** An app connection. Its credentials are write-only: no route ever returns them. */
export const FlowAppConnectionSchema = Component(
  'FlowAppConnection',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      app_uid: Type.String({ minLength: 1, maxLength: 100, description: 'The `connect` app this connection is for' }),
      label: Type.String({ minLength: 1, maxLength: 200, description: 'How the connection is shown to users (`app_connection.label` of a step)' }),
      status: ReadOnly(
        Type.Union([Type.Literal('connected'), Type.Literal('needs_reauth')], {
          description:
            '`needs_reauth` once the app’s authorization server refused to refresh its OAuth tokens (revoked, expired grant): steps using it fail with `status_message` ' +
            'until it is authorized again (`POST /api/v1/flow/connections/oauth/start`) or given new credentials',
        }),
      ),
      status_message: ReadOnly(Type.Union([Type.String(), Type.Null()], { description: 'Why the connection needs attention; null while `connected`' })),
      created_at: ReadOnly(Timestamp()),
    },
    {
      additionalProperties: false,
      description: 'A tenant’s credentials for one `connect` app, which steps of that app name as `app_connection_uuid`. The credentials are write-only: stored encrypted, never returned.',
    },
  ),
);

const Credentials = Type.Object(
  {},
  {
    additionalProperties: true,
    writeOnly: true,
    description: 'Validated against the app’s `auth.schema` (`GET /api/v1/flow/apps/{uid}`); stored encrypted and never returned.',
  },
);

export const ConnectionCreate = Type.Object(
  { ...FlowAppConnectionSchema.properties, credentials: Credentials },
  { additionalProperties: false, examples: [{ app_uid: 'crm', label: 'Sales CRM', credentials: { api_key: 'secret-key' } }] },
);

export const ConnectionPatch = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    app_uid: ReadOnly(Type.String({ description: 'A connection stays with its app: ignored here' })),
    label: Type.Optional(FlowAppConnectionSchema.properties.label),
    credentials: Type.Optional({ ...Credentials, description: 'Replaces the stored credentials whole (validated against the app’s `auth.schema`); absent keeps them.' }),
    status: FlowAppConnectionSchema.properties.status,
    status_message: FlowAppConnectionSchema.properties.status_message,
    created_at: ReadOnly(Timestamp()),
  },
  { additionalProperties: false },
);

export const ConnectionQuery = Type.Object({ app_uid: Type.Optional(Type.String({ maxLength: 100, description: 'Only connections of this app' })) });

export const FlowOptionSchema = Component(
  'FlowOption',
  Type.Object({ label: Type.String({ description: 'What the user sees' }), value: Type.String({ description: 'What the step’s config stores' }) }, { additionalProperties: false }),
);

export const OptionsRequest = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 100, description: 'One of the app’s option lists (`options[].kind` of `GET /api/v1/flow/apps/{uid}`)' }),
    connection_uuid: Type.Optional(Type.Union([Uuid(), Type.Null()], { description: 'Required for `connect` apps (a connection of this tenant and this app); null or absent for `builtin` apps' })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Validated against the list’s `params_schema`' })),
    search: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'Only options whose label contains this (case-insensitive), or the app service’s own search for a `searchable` list' })),
    cursor: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'The `next_cursor` of the previous page, with the same `kind`, `params` and `search` (a cursor is bound to them)' })),
  },
  { additionalProperties: false, examples: [{ kind: 'records', connection_uuid: '0198c0de-7a4e-7c1a-9f0e-3d2b1a0c9e8f', params: { module: 'contacts' }, search: 'ada' }] },
);

export const OptionsResponse = Type.Object(
  {
    success: Type.Boolean(),
    data: Type.Array(FlowOptionSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Send it back as `cursor` for the next page; null on the last page' }),
    state: Type.Optional(Type.Literal('unavailable', { description: 'Present when the list cannot be loaded yet (the connection cannot reach its service, say): `data` is empty and `message` says why' })),
    message: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
