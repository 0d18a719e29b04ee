import { createHash, randomBytes } from 'node:crypto';
import type { Egress, EgressResponse } from '../../../core';
import type { OAuth2Auth } from '../app/auth';

/**
 * The client side of OAuth 2.0 (RFC 6749) for connect apps: the authorization URL with
 * PKCE (RFC 7636, S256), the code exchange and the refresh. Client authentication is
 * `client_secret_post` (id and secret in the form), which Zoho, Google and HubSpot take.
 */

/** What the operator configured for an app: its endpoints with config values in, and its client. */
export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Reads one config value by key (the kernel's config; each app plugin adds its keys). */
export type ConfigReader = (key: string) => unknown;

/** Raised when the operator has not configured an app's OAuth client: a 422 for who started, a boot-time warning for operators. */
export class OAuthNotConfigured extends Error {
  override readonly name = 'OAuthNotConfigured';
}

const fill = (template: string, read: ConfigReader): string =>
  template.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_whole, key: string) => {
    const value = read(key);
    if (typeof value !== 'string' || value === '') throw new OAuthNotConfigured(`config key "${key}" is not set`);
    return value.replace(/\/+$/, '');
  });

/** The app's endpoints and client from config; throws OAuthNotConfigured naming what is missing. */
export function oauthEndpoints(auth: OAuth2Auth, read: ConfigReader): OAuthEndpoints {
  const clientId = read(auth.clientIdKey);
  const clientSecret = read(auth.clientSecretKey);
  if (typeof clientId !== 'string' || clientId === '') throw new OAuthNotConfigured(`config key "${auth.clientIdKey}" (the OAuth client id) is not set`);
  if (typeof clientSecret !== 'string' || clientSecret === '') throw new OAuthNotConfigured(`config key "${auth.clientSecretKey}" (the OAuth client secret) is not set`);
  return { authorizeUrl: fill(auth.authorizeUrl, read), tokenUrl: fill(auth.tokenUrl, read), clientId, clientSecret };
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

/** A fresh PKCE verifier (43 characters of the unreserved set) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
}

/** The URL the user's browser is sent to, to grant access. */
export function authorizationUrl(auth: OAuth2Auth, endpoints: OAuthEndpoints, request: { state: string; redirectUri: string; codeChallenge: string | null }): string {
  const url = new URL(endpoints.authorizeUrl);
  const params: Record<string, string> = {
    ...auth.authorizeParams,
    response_type: 'code',
    client_id: endpoints.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
  };
  if (auth.scopes.length > 0) params.scope = auth.scopes.join(auth.scopeSeparator);
  if (request.codeChallenge) Object.assign(params, { code_challenge: request.codeChallenge, code_challenge_method: 'S256' });
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/** What a token endpoint answered (RFC 6749 section 5.1). */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
}

/** The token endpoint refused the grant (RFC 6749 section 5.2): the user must authorize again. */
export class OAuthGrantRefused extends Error {
  override readonly name = 'OAuthGrantRefused';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function tokenSetOf(response: EgressResponse, what: string): TokenSet {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = response.json();
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: judged by its status below.
  }
  const reason = [body.error, body.error_description].filter((part) => typeof part === 'string' && part !== '').join(': ');
  // Zoho answers a refused grant with 200 and `{error: "invalid_code"}`: an error member is a refusal whatever the status.
  if (response.status === 400 || response.status === 401 || (response.status < 300 && typeof body.error === 'string')) {
    throw new OAuthGrantRefused(`the authorization server refused the ${what}${reason ? ` (${reason})` : ` (${response.status})`}`, response.status);
  }
  if (response.status >= 300) throw new Error(`the authorization server failed the ${what} (${response.status}${reason ? `: ${reason}` : ''})`);
  if (typeof body.access_token !== 'string' || body.access_token === '') throw new Error(`the authorization server answered the ${what} without an access_token`);
  const expires = Number(body.expires_in);
  return {
    access_token: body.access_token,
    ...(typeof body.refresh_token === 'string' && body.refresh_token !== '' ? { refresh_token: body.refresh_token } : {}),
    ...(typeof body.token_type === 'string' ? { token_type: body.token_type } : {}),
    ...(Number.isFinite(expires) && expires > 0 ? { expires_in: expires } : {}),
    ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
  };
}

async function tokenRequest(egress: Egress, endpoints: OAuthEndpoints, form: Record<string, string>, what: string): Promise<TokenSet> {
  const body = new URLSearchParams({ ...form, client_id: endpoints.clientId, client_secret: endpoints.clientSecret }).toString();
  // Not retried: a code is good for one exchange, and a rotated refresh token for one refresh.
  const response = await egress.request(endpoints.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
    retries: 0,
  });
  return tokenSetOf(response, what);
}

/** Exchanges an authorization code (with its PKCE verifier) for tokens. */
export function exchangeCode(egress: Egress, endpoints: OAuthEndpoints, request: { code: string; redirectUri: string; codeVerifier: string | null }): Promise<TokenSet> {
  return tokenRequest(
    egress,
    endpoints,
    { grant_type: 'authorization_code', code: request.code, redirect_uri: request.redirectUri, ...(request.codeVerifier ? { code_verifier: request.codeVerifier } : {}) },
    'authorization code',
  );
}

/** Trades a refresh token for a new access token (and, with servers that rotate them, a new refresh token). */
export function refreshTokens(egress: Egress, endpoints: OAuthEndpoints, refreshToken: string): Promise<TokenSet> {
  return tokenRequest(egress, endpoints, { grant_type: 'refresh_token', refresh_token: refreshToken }, 'refresh token');
}

/** The credentials a connection stores from a token answer; a refresh without a new refresh token keeps the old one. */
export function credentialsFrom(tokens: TokenSet, previous: Record<string, unknown> = {}, now = Date.now()): Record<string, unknown> {
  const credentials: Record<string, unknown> = { ...previous, access_token: tokens.access_token };
  if (tokens.refresh_token) credentials.refresh_token = tokens.refresh_token;
  if (tokens.token_type) credentials.token_type = tokens.token_type;
  if (tokens.scope !== undefined) credentials.scope = tokens.scope;
  if (tokens.expires_in !== undefined) credentials.expires_at = new Date(now + tokens.expires_in * 1000).toISOString();
  else delete credentials.expires_at;
  return credentials;
}
