import { createHash, randomBytes } from 'node:crypto';
import { startVendorServer, type VendorReply, type VendorServer } from './vendor-server';

/**
 * An OAuth 2.0 authorization server played on loopback (RFC 6749 authorization code,
 * RFC 7636 PKCE with S256, refresh tokens), strict about what it is sent, for testing
 * connect apps and the flows plugin's OAuth connections: the client id and secret, the
 * redirect URI repeated at the exchange, the PKCE verifier against the challenge, codes
 * used once. `consent` plays the user's browser at the authorization URL.
 */
export interface OAuthServerOptions {
  clientId: string;
  clientSecret: string;
  /** Default `/oauth/authorize`. */
  authorizePath?: string;
  /** Default `/oauth/token`. */
  tokenPath?: string;
  /** Seconds an access token lives (`expires_in`); default 3600. */
  accessTokenTtlSeconds?: number;
  /** Issue a new refresh token with each refresh, the old one then refused (default false). */
  rotateRefreshTokens?: boolean;
  /** Require a PKCE challenge on every authorization (default true). */
  requirePkce?: boolean;
}

/** A type, not an interface, so it passes as a connection's credentials (a record). */
export type IssuedTokens = {
  access_token: string;
  refresh_token: string;
  /** ISO time the access token lapses, as a connection stores it. */
  expires_at: string;
};

export interface OAuthServer {
  /** The server's base URL: the authorization endpoint is `url + authorizePath`, the token endpoint `url + tokenPath`. */
  readonly url: string;
  /** Every form the token endpoint received, in order (`grant_type`, `code`, `refresh_token`, `code_verifier`, ...). */
  readonly tokenRequests: Array<Record<string, string>>;
  /**
   * The user grants access at `authorizationUrl` (checked: client id, response type,
   * redirect URI, state, the PKCE challenge): returns the URL the browser is then sent
   * to, the redirect URI with `code` and `state`. `deny` sends `error=access_denied` instead.
   */
  consent(authorizationUrl: string, options?: { deny?: boolean }): string;
  /** Whether an `Authorization` header carries a live access token issued here, after `prefix` (default `Bearer`). */
  accepts(authorization: string | string[] | undefined, prefix?: string): boolean;
  /** Tokens issued directly, as if a connection had authorized already. */
  issue(): IssuedTokens;
  /** Every access token issued so far stops working (a 401 from the vendor); refresh tokens still work. */
  expireAccessTokens(): void;
  /** Every refresh token is refused from now on (`invalid_grant`): the user must authorize again. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface PendingCode {
  redirectUri: string;
  challenge: string | null;
  scope: string;
}

const token = (kind: string) => `${kind}-${randomBytes(12).toString('hex')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const refusal = (error: string, description: string, status = 400): VendorReply => ({ status, body: { error, error_description: description } });

export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const authorizePath = options.authorizePath ?? '/oauth/authorize';
  const tokenPath = options.tokenPath ?? '/oauth/token';
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const codes = new Map<string, PendingCode>();
  const liveAccess = new Set<string>();
  const liveRefresh = new Set<string>();
  const tokenRequests: Array<Record<string, string>> = [];
  let refreshRevoked = false;

  const grant = (scope: string, refreshToken?: string) => {
    const access = token('access');
    liveAccess.add(access);
    const refresh = refreshToken ?? token('refresh');
    liveRefresh.add(refresh);
    return { access_token: access, token_type: 'Bearer', expires_in: ttl, scope, ...(refreshToken ? {} : { refresh_token: refresh }) };
  };

  const server: VendorServer<Record<string, never>> = await startVendorServer({
    [`POST ${tokenPath}`]: (request) => {
      if (!/application\/x-www-form-urlencoded/.test(String(request.headers['content-type']))) return refusal('invalid_request', 'the token request must be a form');
      const form = Object.fromEntries(new URLSearchParams(request.body));
      tokenRequests.push(form);
      if (form.client_id !== options.clientId || form.client_secret !== options.clientSecret) return refusal('invalid_client', 'unknown client or wrong secret', 401);
      if (form.grant_type === 'authorization_code') {
        const pending = codes.get(form.code ?? '');
        codes.delete(form.code ?? '');
        if (!pending) return refusal('invalid_grant', 'unknown or used code');
        if (form.redirect_uri !== pending.redirectUri) return refusal('invalid_grant', 'redirect_uri differs from the authorization request');
        if (pending.challenge !== null && (!form.code_verifier || s256(form.code_verifier) !== pending.challenge)) return refusal('invalid_grant', 'PKCE verifier does not match the challenge');
        return { body: grant(pending.scope) };
      }
      if (form.grant_type === 'refresh_token') {
        if (refreshRevoked || !liveRefresh.has(form.refresh_token ?? '')) return refusal('invalid_grant', 'refresh token revoked or unknown');
        if (options.rotateRefreshTokens) {
          liveRefresh.delete(form.refresh_token);
          return { body: grant('') };
        }
        return { body: grant('', form.refresh_token) };
      }
      return refusal('unsupported_grant_type', `grant_type ${form.grant_type ?? '(none)'} is not supported`);
    },
  });

  return {
    url: server.url,
    tokenRequests,
    consent(authorizationUrl, { deny = false } = {}) {
      const url = new URL(authorizationUrl);
      if (`${url.origin}${url.pathname}` !== `${server.url}${authorizePath}`) throw new Error(`the authorization URL ${url.origin}${url.pathname} is not this server's ${server.url}${authorizePath}`);
      const param = (name: string) => url.searchParams.get(name);
      if (param('response_type') !== 'code') throw new Error('response_type must be code');
      if (param('client_id') !== options.clientId) throw new Error(`client_id ${param('client_id')} is not the registered client`);
      const redirectUri = param('redirect_uri');
      const state = param('state');
      if (!redirectUri || !state) throw new Error('redirect_uri and state are required');
      const challenge = param('code_challenge');
      if ((options.requirePkce ?? true) && (!challenge || param('code_challenge_method') !== 'S256')) throw new Error('a PKCE S256 code_challenge is required');
      const back = new URL(redirectUri);
      back.searchParams.set('state', state);
      if (deny) {
        back.searchParams.set('error', 'access_denied');
        return back.toString();
      }
      const code = token('code');
      codes.set(code, { redirectUri, challenge, scope: param('scope') ?? '' });
      back.searchParams.set('code', code);
      return back.toString();
    },
    accepts(authorization, prefix = 'Bearer') {
      const header = Array.isArray(authorization) ? authorization[0] : authorization;
      if (!header?.startsWith(`${prefix} `)) return false;
      return liveAccess.has(header.slice(prefix.length + 1));
    },
    issue() {
      const granted = grant('');
      return { access_token: granted.access_token, refresh_token: granted.refresh_token!, expires_at: new Date(Date.now() + ttl * 1000).toISOString() };
    },
    expireAccessTokens: () => liveAccess.clear(),
    revokeRefreshTokens() {
      refreshRevoked = true;
    },
    close: () => server.close(),
  };
}
