import type { EntityManager } from '@mikro-orm/postgresql';
import { HttpError, NotFoundError, ValidationError, defineRoute, findByUuid, type AnyRoute, type FieldErrors, type Static } from '../../../core';
import type { FlowAppDefinition, FlowOption, OptionsProviderDefinition, OptionsResult } from '../app/flow-app';
import { VendorError } from '../app/vendor-error';
import { ConnectionNeedsReauth, engineHttp } from '../connections/connection-http';
import { openConnection } from '../connections/connection-store';
import { FlowConnection } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { validateConfig } from '../model/config-validation';
import { decodeCursor, encodeCursor, listDigest, normalizeSearch, startOf, type ListPosition } from './options-cursor';
import { AppParams, OptionsRequest, OptionsResponse } from './schemas';

/** Options per page of a list the server pages itself (decisions.md: page size 100). */
export const OPTIONS_PAGE_SIZE = 100;

type Request = Static<typeof OptionsRequest>;
type Answer = Static<typeof OptionsResponse>;

interface CheckedRequest {
  provider: OptionsProviderDefinition;
  connection: FlowConnection | null;
  /** Where a list the server pages goes on; null for its first page and for searchable lists. */
  position: ListPosition | null;
  digest: string;
}

/** Every problem of the request at once, as one 422; what the load needs when there is none. */
async function check(em: EntityManager, app: FlowAppDefinition, body: Request): Promise<CheckedRequest> {
  const providers = app.options ?? [];
  // The spec's bot messaging case: nothing to ask for, whatever the request says.
  if (providers.length === 0) throw new ValidationError({ kind: ['is not an option list of this app: it has none'] }, `The app "${app.name}" has no option lists`);

  const errors: FieldErrors = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const provider = providers.find((candidate) => candidate.kind === body.kind);
  if (!provider) add('kind', `must be one of: ${providers.map((candidate) => candidate.kind).join(', ')}`);
  else Object.assign(errors, validateConfig(provider.params, body.params ?? {}, { basePath: 'params', atRunTime: true }));

  let connection: FlowConnection | null = null;
  const connectionUuid = body.connection_uuid ?? null;
  if (app.category === 'builtin') {
    if (connectionUuid !== null) add('connection_uuid', `must be null: "${app.name}" is a builtin app and takes no connection`);
  } else if (connectionUuid === null) {
    add('connection_uuid', `is required: "${app.name}" lists options through one of its connections`);
  } else {
    connection = await findByUuid(em, FlowConnection, connectionUuid);
    if (!connection) add('connection_uuid', 'is not a connection of this tenant');
    else if (connection.appUid !== app.uid) add('connection_uuid', `is a connection of the app "${connection.appUid}", not of "${app.uid}"`);
  }

  let position: ListPosition | null = null;
  const digest = listDigest(body.kind, body.params, body.search);
  if (provider && !provider.searchable && body.cursor) {
    const decoded = decodeCursor(body.cursor, digest);
    if (decoded === null) add('cursor', 'is not a cursor this list returned');
    else if (decoded === 'elsewhere') add('cursor', 'was returned for another list or search: send the `kind`, `params` and `search` of the page it came from');
    else position = decoded;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { provider: provider!, connection, position, digest };
}

const isOption = (option: unknown): option is FlowOption =>
  typeof option === 'object' && option !== null && typeof (option as FlowOption).label === 'string' && typeof (option as FlowOption).value === 'string';

/** True for an answer of the shape OptionsResult promises (an app's code is not type-checked at run time). */
function wellFormed(result: unknown): result is OptionsResult {
  if (typeof result !== 'object' || result === null) return false;
  const answer = result as Record<string, unknown>;
  if (answer.state === 'unavailable') return typeof answer.message === 'string';
  return Array.isArray(answer.options) && answer.options.every(isOption) && (answer.nextCursor == null || typeof answer.nextCursor === 'string');
}

/** A whole list, filtered by the user's search (case-insensitive, on the label) and cut to one page. */
function page(options: FlowOption[], search: string | null, position: ListPosition | null, digest: string): Answer {
  const needle = normalizeSearch(search);
  const matching = needle ? options.filter((option) => option.label.toLowerCase().includes(needle)) : options;
  const start = startOf(matching, position);
  const data = matching.slice(start, start + OPTIONS_PAGE_SIZE).map(({ label, value }) => ({ label, value }));
  const end = start + data.length;
  return { success: true, data, next_cursor: end < matching.length ? encodeCursor(end, data, digest) : null };
}

/** `POST /api/v1/flow/apps/{uid}/options`: one page of a dynamic option list, loaded by the app's provider. */
export function optionsRoute(runtime: FlowsRuntime): AnyRoute {
  const { catalog, secrets, egress, logger } = runtime;
  return defineRoute({
    method: 'POST',
    path: '/api/v1/flow/apps/:uid/options',
    summary: 'Load an option list of a flow app',
    description:
      'Lists the choices for a step’s config member (`kind` is one of the app’s `options[].kind`). An unknown app answers 404. 422, naming the member, for: ' +
      'an unknown `kind`; `params` not matching the list’s `params_schema` (at `params.<name>`); for a `connect` app, a missing `connection_uuid` or one that is not ' +
      'a connection of this tenant and this app; for a `builtin` app, any `connection_uuid`; an app with no option lists at all (a bot messaging app, say); ' +
      'a `cursor` this list did not return, or returned for other `kind`, `params` or `search`; whatever else the list itself refuses (at the member it names).\n\n' +
      `A list that is not \`searchable\` is loaded whole, filtered by \`search\` (case-insensitive, on the label) and paged by ${OPTIONS_PAGE_SIZE} on the server; ` +
      'its cursor goes on after the last option sent, so options added or removed before it between two pages are neither repeated nor skipped. ' +
      'A `searchable` one passes `search` and `cursor` to the app’s service, which pages with cursors of its own. Page on with `next_cursor` ' +
      '(null on the last page), sending the same `kind`, `params` and `search`. A step’s config member linked to a list (`x-options` in the ' +
      'action’s `input_schema`) says which `kind` and `params` to send.\n\n' +
      'When the list cannot be loaded yet (the connection cannot reach its service, say), the answer is still 200, with `data: []`, ' +
      '`state: "unavailable"` and a `message` for the user. When the app’s service fails, 502 says so. The server never picks an option: ' +
      'even a list of one is the user’s choice.',
    params: AppParams,
    body: OptionsRequest,
    errors: [404, 502],
    // Nothing is written, and an app's service must not keep a database transaction open while it answers.
    transactional: false,
    response: OptionsResponse,
    handler: async ({ params, body, em, tenant }): Promise<Answer> => {
      const app = catalog.app(params.uid);
      if (!app) throw new NotFoundError('Flow app not found');
      const { provider, connection, position, digest } = await check(em, app, body);
      const search = body.search ?? null;
      const appLogger = logger.child({ flow_app: app.uid, options_kind: provider.kind });

      if (connection?.status === 'needs_reauth') {
        return { success: true, data: [], next_cursor: null, state: 'unavailable', message: connection.statusMessage ?? `The connection "${connection.label}" must be authorized again` };
      }
      const opened = connection && openConnection(secrets, tenant.uuid, connection);
      let result: unknown;
      try {
        result = await provider.load({
          tenant,
          em,
          egress,
          http: engineHttp(runtime, app.auth, opened),
          logger: appLogger,
          connection: opened,
          params: body.params ?? {},
          search: provider.searchable ? search : null,
          cursor: provider.searchable ? (body.cursor ?? null) : null,
        });
      } catch (error) {
        // The provider's own check of what it was asked (a cursor it never returned, a param it cannot use): the caller's 422.
        if (error instanceof ValidationError) throw error;
        // A refusal the user can act on (reconnect, grant a scope, wait): the list's state, not a failure of ours.
        if (error instanceof ConnectionNeedsReauth || (error instanceof VendorError && error.refused)) {
          return { success: true, data: [], next_cursor: null, state: 'unavailable', message: error.message };
        }
        appLogger.warn('option list failed', { error: (error as Error)?.stack ?? String(error) });
        throw new HttpError(502, `The service of the app "${app.name}" failed to list ${provider.kind}: ${(error as Error)?.message ?? String(error)}`);
      }
      if (!wellFormed(result)) {
        appLogger.warn('option list answered something that is not a list of {label, value} strings nor a state');
        throw new HttpError(502, `The app "${app.name}" answered an invalid ${provider.kind} list`);
      }
      if ('state' in result) return { success: true, data: [], next_cursor: null, state: result.state, message: result.message };
      if (provider.searchable) return { success: true, data: result.options.map(({ label, value }) => ({ label, value })), next_cursor: result.nextCursor ?? null };
      return page(result.options, search, position, digest);
    },
  });
}
