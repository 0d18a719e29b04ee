import { setTimeout as sleep } from 'node:timers/promises';
import type { Egress, EgressRequestOptions, EgressResponse } from '../../../core';
import type { FlowAppAuth, RequestAuthorization } from '../app/auth';
import type { ConnectionHttp, FlowConnectionValue } from '../app/flow-app';

export type { ConnectionHttp } from '../app/flow-app';
import { retryAfterSeconds } from '../app/vendor-error';

/**
 * `context.http` as the engine and the test kit build it: see ConnectionHttp (flow-app.ts).
 * A 429 whose `Retry-After` is short is waited out and sent again, twice at most; a
 * longer one is returned for the app to report (expectOk).
 */

/** Keeps an OAuth connection's tokens: the flows plugin seals them in the database; the test kit holds them in memory. */
export interface TokenKeeper {
  /**
   * Credentials with an access token newer than `stale` (the one that expired or was
   * refused): refreshed, or already refreshed by a concurrent call, which this one joins.
   * Throws ConnectionNeedsReauth when the authorization server refuses the refresh.
   */
  refresh(connection: FlowConnectionValue, stale: string): Promise<Record<string, unknown>>;
}

/** The connection's grant is gone (revoked, expired, refused): a user must connect the app again. */
export class ConnectionNeedsReauth extends Error {
  override readonly name = 'ConnectionNeedsReauth';
}

/** Refresh when the access token has less than this left, so a call never starts with a token about to lapse. */
export const REFRESH_EARLY_MS = 60_000;
/** The longest `Retry-After` waited out in the call itself; beyond it the 429 goes back to the app. */
const MAX_RATE_WAIT_SECONDS = 10;
const RATE_RETRIES = 2;

function defaultAuthorization(auth: FlowAppAuth | undefined, credentials: Record<string, unknown>): RequestAuthorization {
  if (!auth) return {};
  if (auth.authorize) return auth.authorize(credentials as never);
  if (auth.type === 'basic') {
    const pair = `${String(credentials.username ?? '')}:${String(credentials.password ?? '')}`;
    return { headers: { authorization: `Basic ${Buffer.from(pair).toString('base64')}` } };
  }
  if (auth.type === 'oauth2') return { headers: { authorization: `${auth.tokenPrefix} ${String(credentials.access_token ?? '')}` } };
  return {};
}

const expiresSoon = (credentials: Record<string, unknown>, now: number): boolean => {
  if (typeof credentials.expires_at !== 'string') return false;
  const at = Date.parse(credentials.expires_at);
  return !Number.isNaN(at) && at - now < REFRESH_EARLY_MS;
};

export interface ConnectionHttpSetup {
  egress: Egress;
  auth: FlowAppAuth | undefined;
  /** The connection whose credentials are applied; refreshed tokens replace its `credentials`. Null: plain egress. */
  connection: FlowConnectionValue | null;
  tokens: TokenKeeper;
}

export function connectionHttp({ egress, auth, connection, tokens }: ConnectionHttpSetup): ConnectionHttp {
  const oauth = auth?.type === 'oauth2' && connection !== null;
  const refreshable = () => oauth && typeof connection!.credentials.refresh_token === 'string';
  const refresh = async () => {
    connection!.credentials = await tokens.refresh(connection!, String(connection!.credentials.access_token ?? ''));
  };
  const send = (url: string | URL, options: EgressRequestOptions): Promise<EgressResponse> => {
    if (!connection) return egress.request(url, options);
    const added = defaultAuthorization(auth, connection.credentials);
    return egress.request(url, {
      ...options,
      headers: { ...options.headers, ...added.headers },
      ...(added.query ? { query: { ...options.query, ...added.query } } : {}),
    });
  };

  return {
    async request(url, options = {}) {
      if (refreshable() && expiresSoon(connection!.credentials, Date.now())) await refresh();
      let response = await send(url, options);
      if (response.status === 401 && refreshable()) {
        await refresh();
        response = await send(url, options);
      }
      for (let attempt = 0; attempt < RATE_RETRIES && response.status === 429; attempt++) {
        const wait = retryAfterSeconds(response);
        if (wait === null || wait > MAX_RATE_WAIT_SECONDS) break;
        await sleep(wait * 1000, undefined, { signal: options.signal });
        response = await send(url, options);
      }
      return response;
    },
  };
}

/** `context.http` for app code the engine runs: the app's auth applied to the connection, tokens kept by `tokens`. */
export const engineHttp = (runtime: { egress: Egress; tokens: TokenKeeper }, auth: FlowAppAuth | undefined, connection: FlowConnectionValue | null): ConnectionHttp =>
  connectionHttp({ egress: runtime.egress, auth, connection, tokens: runtime.tokens });
