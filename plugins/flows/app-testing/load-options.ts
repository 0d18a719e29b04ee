import type { DepsScope } from '../app/app-deps';
import type { OptionsProviderDefinition, OptionsResult } from '../app/flow-app';
import { inTenant, schemaProblems, setUpCall, type AppCallOptions } from './app-call';

export interface LoadOptionsOptions extends AppCallOptions {
  /** What the user typed; given to a `searchable` list only, as the options route does. */
  search?: string | null;
  /** The `nextCursor` of the previous page; given to a `searchable` list only. */
  cursor?: string | null;
}

export interface OptionsLoad {
  /** What the list answered: a page of `{ label, value }`, or a state. */
  result: OptionsResult;
  logs: Array<Record<string, unknown>>;
}

function providerOf(scope: DepsScope, kind: string): OptionsProviderDefinition<any> {
  const provider = scope.options?.find((candidate) => candidate.kind === kind);
  // The options route's own 422 for an unknown kind.
  if (!provider) throw new Error(`${'uid' in scope ? scope.uid : scope.app} has no option list "${kind}" (it has ${(scope.options ?? []).map((o) => o.kind).join(', ') || 'none'})`);
  return provider;
}

/** An app's code is not type-checked at run time: the route answers 502 for what is neither a page of string pairs nor a state. */
function checkShape(result: unknown, kind: string): OptionsResult {
  const answer = (result ?? {}) as Record<string, unknown>;
  const pairs = Array.isArray(answer.options) && answer.options.every((o) => typeof o?.label === 'string' && typeof o?.value === 'string');
  const cursor = answer.nextCursor === undefined || answer.nextCursor === null || typeof answer.nextCursor === 'string';
  if ((answer.state === 'unavailable' && typeof answer.message === 'string') || (pairs && cursor)) return result as OptionsResult;
  throw new Error(`option list "${kind}" answered something that is neither { options: [{ label, value }], nextCursor? } nor { state: 'unavailable', message }`);
}

/**
 * Loads one option list of an app as `POST /api/v1/flow/apps/{uid}/options` does, without
 * HTTP: `params` validated against the list's schema (a 422-style `ValidationError` at
 * `params.<member>`), the connection checked (a connect app needs one, a builtin app takes
 * none), `search` and `cursor` passed to a searchable list only, and the answer's shape
 * checked. The list is returned whole, as the app answered: the route's filtering and
 * paging of a list that is not searchable are the route's, tested through HTTP.
 */
export async function loadOptions(scope: DepsScope, kind: string, params: Record<string, unknown> = {}, options: LoadOptionsOptions = {}): Promise<OptionsLoad> {
  const provider = providerOf(scope, kind);
  const call = setUpCall(scope, options, schemaProblems(provider.params, params, 'params'));
  // Nothing written, and an app's service must not keep a transaction open while it answers: as the route, no transaction.
  const result = await inTenant(options.kit, call.tenant, false, async (em) =>
    provider.load({
      tenant: call.tenant,
      em,
      egress: call.egress,
      logger: call.logger,
      connection: call.connection,
      http: call.http,
      params,
      search: provider.searchable ? (options.search ?? null) : null,
      cursor: provider.searchable ? (options.cursor ?? null) : null,
      ...call.deps,
    }),
  );
  return { result: checkShape(result, kind), logs: call.logs };
}
