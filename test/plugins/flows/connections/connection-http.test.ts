import { Type } from '../../../../core';
import { Auth, VendorError, expectOk, retryAfterSeconds, vendorError } from '../../../../plugins/flows';
import { connectionHttp, type TokenKeeper } from '../../../../plugins/flows/connections/connection-http';
import { recordingEgress } from '../../../../plugins/flows/testing-kit';

/** `context.http` on its own: credentials applied per auth type, 429 waited out, vendor answers turned into clear errors. */
const never: TokenKeeper = { refresh: () => Promise.reject(new Error('no refresh expected')) };
const connection = (credentials: Record<string, unknown>) => ({ uuid: 'c1', label: 'Test', credentials });

describe('connectionHttp', () => {
  it('sends Basic credentials for a basic auth, and what an auth`s authorize() says for the others', async () => {
    const egress = recordingEgress().reply({ body: {} }, { body: {} }, { body: {} });
    await connectionHttp({ egress, auth: Auth.basic(), connection: connection({ username: 'ada', password: 'pw:1' }), tokens: never }).request('https://dav.example/x');
    expect(egress.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('ada:pw:1').toString('base64')}`);

    const keyed = Auth.apiKey({ authorize: (credentials) => ({ query: { key: credentials.api_key }, headers: { 'x-api-version': '2' } }) });
    await connectionHttp({ egress, auth: keyed, connection: connection({ api_key: 's3cret' }), tokens: never }).request('https://api.example/list', { query: { page: '2' } });
    expect(new URL(egress.requests[1].url).searchParams.get('key')).toBe('s3cret');
    expect(new URL(egress.requests[1].url).searchParams.get('page')).toBe('2');
    expect(egress.requests[1].headers['x-api-version']).toBe('2');

    // An API key app without authorize() adds nothing: its code puts the key where its vendor wants it.
    await connectionHttp({ egress, auth: Auth.custom(Type.Object({ token: Type.String() })), connection: connection({ token: 't' }), tokens: never }).request('https://api.example/plain');
    expect(egress.requests[2].headers.authorization).toBeUndefined();
  });

  it('sends an OAuth2 token after the auth`s prefix (Zoho`s Zoho-oauthtoken)', async () => {
    const egress = recordingEgress().reply({ body: {} });
    const zoho = Auth.oauth2({ authorizeUrl: 'https://a.example/auth', tokenUrl: 'https://a.example/token', clientIdKey: 'id', clientSecretKey: 'secret', tokenPrefix: 'Zoho-oauthtoken' });
    await connectionHttp({ egress, auth: zoho, connection: connection({ access_token: 'tok' }), tokens: never }).request('https://crm.example/crm/v2/Leads');
    expect(egress.requests[0].headers.authorization).toBe('Zoho-oauthtoken tok');
  });

  it('waits out a short Retry-After on a 429 and sends again; a long one goes back to the app', async () => {
    const egress = recordingEgress().reply({ status: 429, headers: { 'retry-after': '1' } }, { body: { ok: true } });
    const http = connectionHttp({ egress, auth: undefined, connection: null, tokens: never });
    const started = Date.now();
    const answer = await http.request('https://api.example/busy');
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(egress.requests).toHaveLength(2);

    const slow = recordingEgress().reply({ status: 429, headers: { 'retry-after': '120' }, body: { message: 'Too many requests' } });
    const refused = await connectionHttp({ egress: slow, auth: undefined, connection: null, tokens: never }).request('https://api.example/busy');
    expect(refused.status).toBe(429);
    expect(slow.requests).toHaveLength(1);
    const error = vendorError('Acme', refused, 'list contacts');
    expect(error).toBeInstanceOf(VendorError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 120, refused: true });
    expect(error.message).toBe('Acme is rate limiting the connection (429: Too many requests); try again in 120 s');
  });
});

describe('vendor errors', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    ({ status, headers, body: Buffer.from(JSON.stringify(body)), text: () => JSON.stringify(body), json: () => body, url: 'https://x', redirects: 0 }) as never;

  it('say what happened in words a user can act on, with the vendor`s own message', () => {
    expect(vendorError('Zoho CRM', answer(401, { code: 'INVALID_TOKEN', message: 'invalid oauth token' }), 'list modules').message).toBe(
      "Zoho CRM refused the connection's credentials while trying to list modules (401: invalid oauth token); reconnect the app",
    );
    expect(vendorError('HubSpot', answer(403, { message: 'missing scopes' }), 'create a contact').message).toMatch(/does not allow the connection to create a contact \(403: missing scopes\); check/);
    expect(vendorError('Google Sheets', answer(503, { error: { message: 'backend error' } }), 'append a row')).toMatchObject({ status: 503, refused: false, message: 'Google Sheets failed to append a row (503: backend error)' });
    expect(() => expectOk('X', answer(201, {}), 'create')).not.toThrow();
    expect(() => expectOk('X', answer(400, { error_description: 'bad field' }), 'create')).toThrow('X refused to create (400: bad field)');
  });

  it('read Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(retryAfterSeconds(answer(429, {}, { 'retry-after': '30' }), now)).toBe(30);
    expect(retryAfterSeconds(answer(429, {}, { 'retry-after': 'Fri, 27 Nov 2026 10:01:00 GMT' }), now)).toBe(60);
    expect(retryAfterSeconds(answer(429, {}), now)).toBeNull();
  });
});
