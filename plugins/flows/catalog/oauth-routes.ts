import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DataEnvelope,
  HttpError,
  Reply,
  Type,
  ValidationError,
  activeTenant,
  defineRoute,
  defineSecretColumn,
  isHttpUrl,
  requestTokenReference,
  tokenIsLive,
  type AnyRoute,
  type TenantRef,
} from '../../../core';
import type { OAuth2Auth } from '../app/auth';
import type { FlowAppDefinition } from '../app/flow-app';
import { sealCredentials } from '../connections/connection-store';
import { testCredentials } from '../connections/connection-test';
import { OAuthGrantRefused, OAuthNotConfigured, authorizationUrl, credentialsFrom, exchangeCode, oauthEndpoints, pkcePair } from '../connections/oauth-client';
import { FlowConnection, FlowOAuthState } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { connectionJson } from './connection-routes';
import { FlowAppConnectionSchema } from './schemas';

/** The PKCE verifier of an authorization under way, sealed for its tenant. */
export const oauthVerifier = defineSecretColumn({ table: 'flow_oauth_states', column: 'code_verifier', entity: 'flow_oauth_state', field: 'code_verifier' });

/** How long a user has to grant access once the authorization starts. */
const STATE_TTL_MS = 10 * 60_000;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

const OAuthStart = Type.Object(
  {
    app_uid: Type.String({ minLength: 1, maxLength: 100, description: 'A `connect` app whose `auth.type` is `oauth2`' }),
    label: FlowAppConnectionSchema.properties.label,
    redirect_uri: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'Where the user’s browser is sent once the callback made the connection (`?connection_uuid=...&status=connected`) or failed (`?error=...&error_description=...`): ' +
          'your application’s page. Absent, the callback answers JSON.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ app_uid: 'zoho_crm', label: 'Sales CRM', redirect_uri: 'https://app.example.com/connections/done' }] },
);

const OAuthStarted = DataEnvelope(
  Type.Object(
    {
      authorization_url: Type.String({ description: 'Open it in the user’s browser: the vendor asks them to grant access, then sends them to `GET /oauth/callback`' }),
      state: Type.String({ description: 'The `state` the callback must bring back; good for 10 minutes and one use' }),
    },
    { additionalProperties: false },
  ),
);

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 200 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  // Authorization servers add members of their own (Zoho's `accounts-server`, Google's `scope`).
  { additionalProperties: true },
);

/** A consumed authorization, as the state row held it. */
interface Pending {
  tenant_uuid: string;
  app_uid: string;
  label: string;
  code_verifier: string | null;
  redirect_uri: string;
  return_to: string | null;
  started_by: string;
  expires_at: Date;
}

/** Where the vendor sends the browser back: OAUTH_REDIRECT_URL when set (the one URL registered with every vendor), else this server as the request reached it. */
function callbackUrl(runtime: FlowsRuntime, req: { protocol: string; host: string }): string {
  const configured = runtime.config.get('oauthRedirectUrl');
  return configured !== '' ? configured : `${req.protocol}://${req.host}/oauth/callback`;
}

function oauthAppOf(runtime: FlowsRuntime, uid: string): { app: FlowAppDefinition; auth: OAuth2Auth } {
  const app = runtime.catalog.app(uid);
  if (!app) throw new ValidationError({ app_uid: ['is not an app of the catalog'] });
  if (app.auth?.type !== 'oauth2') throw new ValidationError({ app_uid: [`"${app.name}" is not connected through OAuth2: create its connection with POST /api/v1/flow/connections`] });
  return { app, auth: app.auth };
}

/** Takes the authorization out, whatever comes next: a state is good for one callback. */
async function consume(em: EntityManager, state: string): Promise<Pending | null> {
  // No tenant yet (the browser brings no bearer): the state's hash finds it, and names the tenant.
  const rows: Pending[] = await em
    .getConnection()
    .execute(
      'delete from flow_oauth_states where state_hash = ? returning tenant_uuid, app_uid, label, code_verifier, redirect_uri, return_to, started_by, expires_at',
      [hashState(state)],
    );
  return rows[0] ?? null;
}

function withParams(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

/**
 * OAuth2 connections (decisions-2.md section 6): the authorization code grant with PKCE.
 * `start` records the authorization for the tenant and the token that asked; the
 * callback (no bearer: the user's browser brings it) finds it by its `state`, exchanges
 * the code with no transaction open, and stores the connection with its tokens sealed.
 */
export function oauthRoutes(runtime: FlowsRuntime): AnyRoute[] {
  return [startRoute(runtime), callbackRoute(runtime)];
}

const startRoute = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/connections/oauth/start',
    summary: 'Start connecting an OAuth2 app',
    description:
      'Answers the vendor’s authorization URL (authorization code with PKCE, S256) and its `state`. Open the URL in the user’s browser; once they grant access, ' +
      'the vendor sends the browser to `GET /oauth/callback`, which makes the connection (for this tenant, and only while the token that called this route is live). ' +
      '422 at `app_uid` for an app that is not in the catalog, does not use OAuth2, or whose OAuth client the operator has not configured (its config keys are named); ' +
      '422 at `redirect_uri` for one that is not an http(s) URL. The authorization expires after 10 minutes.',
    body: OAuthStart,
    response: OAuthStarted,
    handler: async ({ body, em, tenant, req }) => {
      const { app, auth } = oauthAppOf(runtime, body.app_uid);
      if (body.redirect_uri !== undefined && !isHttpUrl(body.redirect_uri)) throw new ValidationError({ redirect_uri: ['must be an absolute http(s) URL'] });
      let endpoints;
      try {
        endpoints = oauthEndpoints(auth, runtime.appConfig(app.uid));
      } catch (error) {
        if (error instanceof OAuthNotConfigured) throw new ValidationError({ app_uid: [`"${app.name}" cannot be connected yet: the operator has not configured its OAuth client (${error.message})`] });
        throw error;
      }
      const startedBy = requestTokenReference(req);
      if (!startedBy) throw new HttpError(401, 'Missing bearer token');
      const state = randomBytes(32).toString('base64url');
      const pkce = auth.pkce ? pkcePair() : null;
      const redirectUri = callbackUrl(runtime, req);
      const now = new Date();
      await em.nativeDelete(FlowOAuthState, { expiresAt: { $lt: now } });
      em.create(FlowOAuthState, {
        stateHash: hashState(state),
        appUid: app.uid,
        label: body.label,
        codeVerifier: pkce ? runtime.secrets.encrypt(pkce.verifier, oauthVerifier.context(tenant.uuid)) : null,
        redirectUri,
        returnTo: body.redirect_uri ?? null,
        startedBy,
        expiresAt: new Date(now.getTime() + STATE_TTL_MS),
      });
      await em.flush();
      return { data: { authorization_url: authorizationUrl(auth, endpoints, { state, redirectUri, codeChallenge: pkce?.challenge ?? null }), state } };
    },
  });

const callbackRoute = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'GET',
    path: '/oauth/callback',
    summary: 'Finish connecting an OAuth2 app (the vendor sends the browser here)',
    description:
      'Register this URL (or OAUTH_REDIRECT_URL) as the redirect URI of each OAuth client. No bearer: the `state` names the authorization `start` recorded, ' +
      'once. The code is exchanged for tokens (with the PKCE verifier), the app’s connection test runs when it has one, and the connection is stored with its tokens sealed. ' +
      'With the start’s `redirect_uri` the browser is then sent there (303) with `connection_uuid` and `status=connected`, or with `error` and `error_description`; ' +
      'without it the answer is the connection as JSON, or 400 saying what failed: an unknown, used or expired `state`, a refusal by the user or the vendor, ' +
      'or a start whose token was revoked since (403).',
    tags: ['flows'],
    auth: 'public',
    query: CallbackQuery,
    errors: [400, 403],
    response: DataEnvelope(FlowAppConnectionSchema),
    // The code exchange calls the vendor: no transaction is open while it answers.
    transactional: false,
    handler: async ({ query, em }) => {
      if (!query.state) throw new HttpError(400, 'The callback has no `state`: open the authorization URL that POST /api/v1/flow/connections/oauth/start answered');
      const pending = await consume(em, query.state);
      if (!pending || new Date(pending.expires_at).getTime() < Date.now()) {
        throw new HttpError(400, 'This authorization is unknown, used already or expired (10 minutes): start again with POST /api/v1/flow/connections/oauth/start');
      }
      const tenant = await activeTenant(em, pending.tenant_uuid);
      if (!tenant) throw new HttpError(400, 'The tenant that started this authorization is not active');
      if (!(await tokenIsLive(em, pending.started_by, tenant.uuid))) throw new HttpError(403, 'The token that started this authorization has been revoked');

      const fail = (error: string, description: string, status = 400) => {
        if (pending.return_to) return new Reply(303, undefined, { location: withParams(pending.return_to, { error, error_description: description }) });
        throw new HttpError(status, description);
      };
      if (query.error) return fail(query.error, `The authorization was not granted: ${query.error}${query.error_description ? ` (${query.error_description})` : ''}`);
      if (!query.code) return fail('invalid_request', 'The callback has neither `code` nor `error`');

      return runtime.tenants.run(tenant, async () => {
        let made: FlowConnection;
        try {
          made = await connect(runtime, em, tenant, pending, query.code!);
        } catch (error) {
          if (error instanceof OAuthGrantRefused) return fail('access_denied', `The vendor refused the authorization code: ${error.message}`);
          if (error instanceof ValidationError) return fail('invalid_grant', error.message);
          runtime.logger.warn('OAuth code exchange failed', { flow_app: pending.app_uid, error: error instanceof Error ? error.message : String(error) });
          return fail('server_error', `The vendor’s authorization server could not be reached or failed: ${error instanceof Error ? error.message : String(error)}`, 502);
        }
        if (pending.return_to) return new Reply(303, undefined, { location: withParams(pending.return_to, { connection_uuid: made.uuid, status: 'connected' }) });
        return { data: connectionJson(made) };
      });
    },
  });

/** Exchanges the code (no transaction open), tests the tokens when the app can, and stores the connection. */
async function connect(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, pending: Pending, code: string): Promise<FlowConnection> {
  const { secrets, egress, logger } = runtime;
  const { app, auth } = oauthAppOf(runtime, pending.app_uid);
  const verifier = pending.code_verifier === null ? null : secrets.decrypt(pending.code_verifier, oauthVerifier.context(tenant.uuid));
  const tokens = await exchangeCode(egress, oauthEndpoints(auth, runtime.appConfig(app.uid)), { code, redirectUri: pending.redirect_uri, codeVerifier: verifier });
  const credentials = credentialsFrom(tokens);
  await testCredentials(app, credentials, { tenant, egress, logger: logger.child({ flow_app: app.uid }) });
  return em.fork().transactional(async (tx) => {
    const created = tx.create(FlowConnection, { appUid: app.uid, label: pending.label, credentials: sealCredentials(secrets, tenant.uuid, credentials) });
    await tx.flush();
    return created;
  });
}
