import type { TObject, TOptional, TProperties, TString } from '@sinclair/typebox';
import { BootError, isHttpUrl, Type, type Egress, type EgressRequestOptions, type EgressResponse, type Logger, type Static, type TSchema, type TenantRef } from '../../../core';

/**
 * How a `connect` app authenticates, declared once per app with one of the `Auth`
 * helpers. Each gives the schema of the credentials a connection stores (validated on
 * create and update, sealed at rest, never returned) and types the credentials the
 * app's code receives (`defineAction({ auth, ... })`).
 */

/**
 * What a connection test is given. No EntityManager: the test calls the app's service,
 * so it runs before the connection's transaction opens (docs/plugins.md, outbound calls).
 */
export interface AuthTestContext {
  tenant: TenantRef;
  egress: Egress;
  /** Egress with the credentials under test applied, as `context.http` applies a connection's (no refresh: they are new). */
  http: ConnectionHttp;
  logger: Logger;
}

/** A test's verdict; `message` is shown to the user at `credentials` (say what to fix, never echo a secret). */
export type AuthTestResult = { valid: true } | { valid: false; message: string };

/**
 * `context.http`: the egress client with the connection's credentials applied (see
 * FlowAppAuth.authorize). For OAuth2 connections it keeps the access token fresh:
 * refreshed when it expires within a minute, and once more when the vendor answers 401
 * (a token revoked early). A 429 with a short `Retry-After` is waited out and sent again.
 */
export interface ConnectionHttp {
  request(url: string | URL, options?: EgressRequestOptions): Promise<EgressResponse>;
}

/** What a connection adds to each request `context.http` sends for it. */
export interface RequestAuthorization {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

interface AuthCommon<S extends TSchema> {
  /** The schema of the credentials a connection stores (an object). */
  schema: S;
  /** Shown to users when they create a connection. */
  description?: string;
  /**
   * Checks new credentials against the app's service before a connection stores them
   * (create, and update of the credentials): `{ valid: false, message }` refuses them
   * with a 422 at `credentials`; so does a throw, with its message.
   */
  test?(credentials: Static<S>, context: AuthTestContext): AuthTestResult | Promise<AuthTestResult>;
  /**
   * What `context.http` adds to each request of a connection (where the vendor wants
   * the key: a header, the query). Defaults: `basic` sends `Authorization: Basic`,
   * `oauth2` sends `Authorization: <tokenPrefix> <access_token>`, `api_key` and
   * `custom` add nothing (the app's code puts the credentials where they go).
   */
  authorize?(credentials: Static<S>): RequestAuthorization;
}

export interface ApiKeyAuth<S extends TSchema = TSchema> extends AuthCommon<S> {
  type: 'api_key';
}

export interface BasicAuth<S extends TSchema = TSchema> extends AuthCommon<S> {
  type: 'basic';
}

/**
 * OAuth 2.0 authorization code (RFC 6749 section 4.1), with PKCE (RFC 7636) when `pkce`.
 * The connection stores the tokens the flows plugin obtained
 * (`POST /api/v1/flow/connections/oauth/start`, then `GET /oauth/callback`) and keeps the
 * access token fresh: refreshed before it expires and once on a 401. The client id and
 * secret are the operator's, read from config keys of the app's plugin; the URLs may
 * name config keys in braces (`{zohoAccountsUrl}/oauth/v2/token`) so an install can point
 * them at its own servers.
 */
export interface OAuth2Auth<S extends TSchema = TSchema> extends AuthCommon<S> {
  type: 'oauth2';
  /** The authorization endpoint; `{configKey}` parts are replaced by the config's values. */
  authorizeUrl: string;
  /** The token endpoint; `{configKey}` parts are replaced by the config's values. */
  tokenUrl: string;
  scopes: readonly string[];
  /** How scopes are joined in the authorization request: a space (RFC 6749), or a comma (Zoho). */
  scopeSeparator: string;
  /** Send a PKCE code challenge (S256). */
  pkce: boolean;
  /** The app plugin's config key holding the OAuth client id. */
  clientIdKey: string;
  /** The app plugin's config key holding the OAuth client secret. */
  clientSecretKey: string;
  /** More query members of the authorization request (`access_type: "offline"` for a refresh token from Google). */
  authorizeParams: Readonly<Record<string, string>>;
  /** The word before the access token in `Authorization` (`Bearer`; Zoho's `Zoho-oauthtoken`). */
  tokenPrefix: string;
}

export interface CustomAuth<S extends TSchema = TSchema> extends AuthCommon<S> {
  type: 'custom';
}

export type FlowAppAuth<S extends TSchema = TSchema> = ApiKeyAuth<S> | BasicAuth<S> | OAuth2Auth<S> | CustomAuth<S>;

export type FlowAuthType = FlowAppAuth['type'];

/** The credentials an auth's connections hold; a plain record when the auth is not known (code written for any app). */
export type CredentialsOf<A> = [A] extends [{ schema: infer S extends TSchema }] ? (TSchema extends S ? Record<string, unknown> : Static<S>) : Record<string, unknown>;

/** What every helper takes: `extra` members stored beside the secret (a base URL, an account id), `examples` for docs and tests. */
interface AuthOptions<S extends TSchema, E extends TProperties> {
  description?: string;
  extra?: E;
  examples?: Array<Static<S>>;
  test?(credentials: Static<S>, context: AuthTestContext): AuthTestResult | Promise<AuthTestResult>;
  authorize?(credentials: Static<S>): RequestAuthorization;
}

type ApiKeySchema<E extends TProperties> = TObject<{ api_key: TString } & E>;
type BasicSchema<E extends TProperties> = TObject<{ username: TString; password: TString } & E>;
type OAuth2Schema<E extends TProperties> = TObject<
  { access_token: TString; refresh_token: TOptional<TString>; token_type: TOptional<TString>; expires_at: TOptional<TString>; scope: TOptional<TString> } & E
>;

interface OAuth2Options<E extends TProperties> extends AuthOptions<OAuth2Schema<E>, E> {
  authorizeUrl: string;
  tokenUrl: string;
  scopes?: readonly string[];
  /** Default a space. */
  scopeSeparator?: string;
  /** Default true. */
  pkce?: boolean;
  clientIdKey: string;
  clientSecretKey: string;
  authorizeParams?: Record<string, string>;
  /** Default `Bearer`. */
  tokenPrefix?: string;
}

/** The credentials object: the auth's own members, then the app's extra ones; nothing else. */
function credentialsSchema<S extends TSchema>(own: TProperties, options: AuthOptions<S, TProperties>): S {
  return Type.Object({ ...own, ...(options.extra ?? {}) }, { additionalProperties: false, ...(options.examples ? { examples: options.examples } : {}) }) as unknown as S;
}

const common = <S extends TSchema>(schema: S, options: Pick<AuthOptions<S, TProperties>, 'description' | 'test' | 'authorize'>) => ({
  schema,
  ...(options.description !== undefined ? { description: options.description } : {}),
  ...(options.test ? { test: options.test } : {}),
  ...(options.authorize ? { authorize: options.authorize } : {}),
});

/** The helpers that declare an app's `auth`. */
export const Auth = {
  /** A secret key, stored as `api_key`. */
  apiKey<E extends TProperties = {}>(options: AuthOptions<ApiKeySchema<E>, E> = {}): ApiKeyAuth<ApiKeySchema<E>> {
    const schema = credentialsSchema<ApiKeySchema<E>>({ api_key: Type.String({ minLength: 1, description: 'The API key' }) }, options);
    return { type: 'api_key', ...common(schema, options) };
  },

  /** A user name and password (HTTP Basic), stored as `username` and `password`. */
  basic<E extends TProperties = {}>(options: AuthOptions<BasicSchema<E>, E> = {}): BasicAuth<BasicSchema<E>> {
    const schema = credentialsSchema<BasicSchema<E>>({ username: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }, options);
    return { type: 'basic', ...common(schema, options) };
  },

  /** OAuth 2.0 authorization code; the connection stores the tokens. */
  oauth2<E extends TProperties = {}>(options: OAuth2Options<E>): OAuth2Auth<OAuth2Schema<E>> {
    const schema = credentialsSchema<OAuth2Schema<E>>(
      {
        access_token: Type.String({ minLength: 1 }),
        refresh_token: Type.Optional(Type.String({ minLength: 1 })),
        token_type: Type.Optional(Type.String()),
        expires_at: Type.Optional(Type.String({ format: 'date-time' })),
        scope: Type.Optional(Type.String()),
      },
      options,
    );
    return {
      type: 'oauth2',
      ...common(schema, options),
      authorizeUrl: options.authorizeUrl,
      tokenUrl: options.tokenUrl,
      scopes: [...(options.scopes ?? [])],
      scopeSeparator: options.scopeSeparator ?? ' ',
      pkce: options.pkce ?? true,
      clientIdKey: options.clientIdKey,
      clientSecretKey: options.clientSecretKey,
      authorizeParams: { ...(options.authorizeParams ?? {}) },
      tokenPrefix: options.tokenPrefix ?? 'Bearer',
    };
  },

  /** Any credentials: the app gives their object schema whole. */
  custom<S extends TSchema>(schema: S, options: Pick<AuthOptions<S, {}>, 'description' | 'test' | 'authorize'> = {}): CustomAuth<S> {
    return { type: 'custom', ...common(schema, options) };
  },
};

const AUTH_TYPES: readonly FlowAuthType[] = ['api_key', 'basic', 'oauth2', 'custom'];
const CONFIG_KEY = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

/** Whether a URL template (`{zohoAccountsUrl}/oauth/v2/auth`) reads as an http(s) URL, with a sample value for each config key it names. */
const isHttpUrlTemplate = (template: unknown): boolean => typeof template === 'string' && isHttpUrl(template.replace(/^\{[A-Za-z][A-Za-z0-9_]*\}/, 'https://config.invalid'));

/** The parts of an app the auth is checked against. */
interface AuthenticatedApp {
  uid: string;
  auth?: FlowAppAuth;
  deps?: Record<string, unknown>;
  actions?: Array<{ key: string; auth?: FlowAppAuth }>;
  triggers?: Array<{ key: string; auth?: FlowAppAuth }>;
  options?: Array<{ kind: string; auth?: FlowAppAuth }>;
}

/** Refuses at boot an auth no connection could be made with, and code typed for another app's credentials. */
export function checkAuth(app: AuthenticatedApp): void {
  const auth = app.auth;
  const refuse = (problem: string) => new BootError(`flow app "${app.uid}": ${problem}`);
  if (auth) {
    if (!AUTH_TYPES.includes(auth.type)) throw refuse(`auth type "${String(auth.type)}" must be one of ${AUTH_TYPES.join(', ')} (declare it with Auth.apiKey, Auth.basic, Auth.oauth2 or Auth.custom)`);
    if ((auth.schema as { type?: unknown }).type !== 'object') throw refuse('the auth schema must be an object schema (the credentials a connection stores)');
    if (auth.type === 'oauth2') {
      if (!isHttpUrlTemplate(auth.authorizeUrl)) throw refuse('oauth2 authorizeUrl must be an http(s) URL, or start with a {configKey} holding one');
      if (!isHttpUrlTemplate(auth.tokenUrl)) throw refuse('oauth2 tokenUrl must be an http(s) URL, or start with a {configKey} holding one');
      const badScope = auth.scopes.find((scope) => typeof scope !== 'string' || scope === '' || /\s/.test(scope));
      if (badScope !== undefined) throw refuse(`oauth2 scope ${JSON.stringify(badScope)} must be a non-empty string without spaces`);
      for (const [name, key] of [['clientIdKey', auth.clientIdKey], ['clientSecretKey', auth.clientSecretKey]] as const) {
        if (typeof key !== 'string' || !CONFIG_KEY.test(key)) throw refuse(`oauth2 ${name} must name a config key of the app's plugin`);
      }
      // The keys are read from the app's own config, which only the app's plugin may read: it hands it over as `deps.config`.
      const config = app.deps?.config as { schema?: Record<string, unknown> } | undefined;
      if (!config?.schema) throw refuse("an OAuth2 app names its plugin's config as `deps.config` (configRef(schema)): its client id, secret and URLs are read from it");
      const templated = [auth.authorizeUrl, auth.tokenUrl].flatMap((url) => [...url.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)].map((match) => match[1]));
      for (const key of [auth.clientIdKey, auth.clientSecretKey, ...templated]) {
        if (!(key in config.schema)) throw refuse(`oauth2 names the config key "${key}", which the config in \`deps.config\` does not declare`);
      }
    }
  }
  const typedFor = [
    ...(app.actions ?? []).map((action) => ({ what: `action "${action.key}"`, auth: action.auth })),
    ...(app.triggers ?? []).map((trigger) => ({ what: `trigger "${trigger.key}"`, auth: trigger.auth })),
    ...(app.options ?? []).map((provider) => ({ what: `options kind "${provider.kind}"`, auth: provider.auth })),
  ];
  for (const { what, auth: declared } of typedFor) {
    if (declared !== undefined && declared !== auth) throw refuse(`${what} is typed for an auth that is not the app's own (pass the app's auth object)`);
  }
}
