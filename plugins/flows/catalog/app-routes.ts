import { DataEnvelope, NotFoundError, Type, defineRoute, readRoute, type AnyRoute, type Static, type TSchema } from '../../../core';
import type { FlowAppAuth, OAuth2Auth } from '../app/auth';
import { OAuthNotConfigured, oauthEndpoints, type ConfigReader } from '../connections/oauth-client';
import type { FlowAppDefinition } from '../app/flow-app';
import type { FlowAppSummary, FlowCatalog } from '../app/flow-catalog';
import type { FlowsRuntime } from '../flows-runtime';
import { AppParams, CatalogQuery, FlowActionSchema, FlowAppDetailSchema, FlowAppSchema, FlowTriggerSchema } from './schemas';

type AppDetail = Static<typeof FlowAppDetailSchema>;

/** A TypeBox schema as plain JSON Schema (TypeBox marks its schemas with symbol keys). */
const jsonSchema = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

/** How a connection authenticates, for the form that makes one: never the operator's client id or secret, nor the config keys holding them. */
function describeAuth(auth: FlowAppAuth, config: ConfigReader): NonNullable<AppDetail['auth']> {
  return {
    type: auth.type,
    description: auth.description ?? null,
    schema: jsonSchema(auth.schema),
    oauth2: auth.type === 'oauth2' ? { ...oauthSetup(auth, config), scopes: [...auth.scopes], pkce: auth.pkce } : null,
  };
}

/** Where this install sends users to grant access, when the operator configured the app's OAuth client. */
function oauthSetup(auth: OAuth2Auth, config: ConfigReader): { authorize_url: string | null; configured: boolean } {
  try {
    return { authorize_url: oauthEndpoints(auth, config).authorizeUrl, configured: true };
  } catch (error) {
    if (error instanceof OAuthNotConfigured) return { authorize_url: null, configured: false };
    throw error;
  }
}

/** The newest version of a trigger or action (what `input_schema` describes) and every version still run. */
function versioning(catalog: FlowCatalog, what: 'trigger' | 'action', uid: string, key: string) {
  const versions = catalog.versions(what, uid, key)!;
  return { version: versions.supported[versions.supported.length - 1], versions: [...versions.supported] };
}

function describe(catalog: FlowCatalog, app: FlowAppDefinition, config: ConfigReader): AppDetail {
  return {
    ...catalog.summary(app),
    requires_agent: app.requiresAgent ?? false,
    auth: app.auth ? describeAuth(app.auth, config) : null,
    triggers: (app.triggers ?? []).map((trigger) => ({
      key: trigger.key,
      ...versioning(catalog, 'trigger', app.uid, trigger.key),
      name: trigger.name,
      description: trigger.description,
      input_schema: jsonSchema(trigger.input),
      output_sample: trigger.outputSample ?? null,
    })),
    actions: (app.actions ?? []).map((action) => ({
      key: action.key,
      ...versioning(catalog, 'action', app.uid, action.key),
      name: action.name,
      description: action.description,
      input_schema: jsonSchema(action.input),
      output_sample: action.outputSample ?? null,
      ...(action.branches ? { branches: [...action.branches] } : {}),
    })),
    options: (app.options ?? []).map((provider) => ({
      kind: provider.kind,
      description: provider.description ?? null,
      params_schema: jsonSchema(provider.params),
      searchable: provider.searchable ?? false,
    })),
  };
}

function matches(app: FlowAppSummary, query: Static<typeof CatalogQuery>): boolean {
  if (query.category && app.category !== query.category) return false;
  const search = query.search?.trim().toLowerCase();
  return !search || [app.name, app.description, app.uid].some((text) => text.toLowerCase().includes(search));
}

const FILTERING =
  'Sorted by name. `search` keeps apps whose name, description or uid contains it (case-insensitive); `category` keeps `builtin` or `connect` apps. ' +
  'The catalog is every app the installed plugins add: it is the same for every tenant and is not paginated.';

/** A whole list of catalog apps (not paged: the catalog is small and fixed), filtered by the query and `keep`. */
const appList = (summaries: FlowAppSummary[], route: { path: string; summary: string; description: string }, keep: (app: FlowAppSummary) => boolean = () => true) =>
  defineRoute({
    method: 'GET',
    ...route,
    query: CatalogQuery,
    response: DataEnvelope(Type.Array(FlowAppSchema)),
    handler: ({ query }) => ({ data: summaries.filter((app) => keep(app) && matches(app, query)) }),
  });

/**
 * The catalog routes (decisions.md: flow catalog), generated from the apps the
 * installed plugins added. The catalog is fixed at boot, so every answer is built once.
 */
export function appRoutes({ catalog, appConfig }: FlowsRuntime): AnyRoute[] {
  const summaries = catalog.list().map((app) => catalog.summary(app));
  // Built at the first request: apps' plugins hand over their config (OAuth clients) after this plugin's init.
  let details: Map<string, AppDetail> | null = null;
  const detailOf = (uid: string): AppDetail => {
    details ??= new Map(catalog.list().map((app) => [app.uid, describe(catalog, app, appConfig(app.uid))]));
    const detail = details.get(uid);
    if (!detail) throw new NotFoundError('Flow app not found');
    return detail;
  };
  return [
    appList(summaries, { path: '/api/v1/flow/apps', summary: 'List the flow apps', description: FILTERING }),
    // Before `/apps/:uid/...`, which would otherwise read `supports` as an app uid.
    ...([['triggers', 'supports_trigger'], ['actions', 'supports_action']] as const).map(([segment, member]) =>
      appList(
        summaries,
        {
          path: `/api/v1/flow/apps/supports/${segment}`,
          summary: `List the flow apps that have ${segment}`,
          description: `Apps with at least one ${segment.slice(0, -1)} (\`${member}\`), in the item shape of \`GET /api/v1/flow/apps\`. ${FILTERING}`,
        },
        (app) => app[member],
      ),
    ),
    readRoute({
      path: '/api/v1/flow/apps/:uid',
      summary: 'Read a flow app with its triggers, actions and option lists',
      description:
        'The catalog item plus what building a step needs: each trigger’s and action’s `input_schema` (JSON Schema of the step’s `config`, to render a form), ' +
        'the `auth.schema` a connection’s `credentials` must match (`connect` apps) and the option lists with their `params_schema`. An unknown uid answers 404.',
      params: AppParams,
      resource: FlowAppDetailSchema,
      read: ({ params }) => detailOf(params.uid),
    }),
    readRoute({
      path: '/api/v1/flow/apps/:uid/triggers',
      summary: 'List the triggers of a flow app',
      description: 'In the app’s order; empty for an app without triggers. An unknown uid answers 404.',
      params: AppParams,
      resource: Type.Array(FlowTriggerSchema),
      read: ({ params }) => detailOf(params.uid).triggers,
    }),
    readRoute({
      path: '/api/v1/flow/apps/:uid/actions',
      summary: 'List the actions of a flow app',
      description: 'In the app’s order; empty for an app without actions. A branching action lists its `branches`. An unknown uid answers 404.',
      params: AppParams,
      resource: Type.Array(FlowActionSchema),
      read: ({ params }) => detailOf(params.uid).actions,
    }),
  ];
}
