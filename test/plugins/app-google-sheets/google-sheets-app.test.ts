import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { googleSheetsApp, googleSheetsConfig } from '../../../plugins/app-google-sheets';
import { ConnectionNeedsReauth, VendorError } from '../../../plugins/flows';
import { flowAppProblems } from '../../../plugins/flows/app/flow-app-problems';
import { runAction, startOAuthServer } from '../../../plugins/flows/testing-kit';
import { startGoogleSheetsServer } from './google-sheets-server';
import { CLIENT, requestsTo, useSheetsTest } from './google-sheets-test-kit';

const t = useSheetsTest();

const PLUGINS = ['agents', 'flows', 'app-google-sheets'].map((id) => path.resolve(__dirname, '../../../plugins', id));

const leads = () => t.google.addSpreadsheet('Leads', { Leads: [['Name', 'Email'], ['Ada', 'ada@example.com']] });
const findAda = (spreadsheetId: string, options: ReturnType<typeof t.call>) =>
  runAction(googleSheetsApp, 'find_rows', { spreadsheet_id: spreadsheetId, worksheet_title: 'Leads', column: 'Name', value: 'Ada' }, options);

describe('the app', () => {
  it('passes the checks `switchboard plugin check` runs (auth, option links, schemas, samples)', () => {
    expect(flowAppProblems([googleSheetsApp], [])).toEqual([]);
  });

  it('authorizes at Google with offline access and consent, for the Sheets and Drive metadata scopes', () => {
    expect(googleSheetsApp.auth).toMatchObject({
      type: 'oauth2',
      authorizeUrl: '{googleSheetsAccountsUrl}/o/oauth2/v2/auth',
      tokenUrl: '{googleSheetsTokenUrl}',
      scopes: ['https://www.googleapis.com/auth/spreadsheets', 'https://www.googleapis.com/auth/drive.metadata.readonly'],
      pkce: true,
      authorizeParams: { access_type: 'offline', prompt: 'consent' },
    });
    const defaults = Object.fromEntries(Object.entries(googleSheetsConfig).map(([key, setting]) => [key, [setting.env, setting.default]]));
    expect(defaults).toEqual({
      googleSheetsClientId: ['GOOGLE_SHEETS_CLIENT_ID', ''],
      googleSheetsClientSecret: ['GOOGLE_SHEETS_CLIENT_SECRET', ''],
      googleSheetsAccountsUrl: ['GOOGLE_SHEETS_ACCOUNTS_URL', 'https://accounts.google.com'],
      googleSheetsTokenUrl: ['GOOGLE_SHEETS_TOKEN_URL', 'https://oauth2.googleapis.com/token'],
      googleSheetsApiBaseUrl: ['GOOGLE_SHEETS_API_BASE_URL', 'https://sheets.googleapis.com'],
      googleSheetsDriveApiBaseUrl: ['GOOGLE_SHEETS_DRIVE_API_BASE_URL', 'https://www.googleapis.com'],
    });
  });
});

describe('tokens', () => {
  it('refreshes an access token about to expire before calling, with the operator’s client', async () => {
    const spreadsheet = leads();
    const issued = t.oauth.issue();
    const before = t.oauth.tokenRequests.length;
    const { output } = await findAda(spreadsheet.id, t.call({ ...issued, expires_at: new Date(Date.now() + 20_000).toISOString() }));
    expect(output).toMatchObject({ count: 1 });
    expect(t.oauth.tokenRequests.slice(before)).toEqual([
      expect.objectContaining({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret }),
    ]);
    // No call went out with the old token.
    expect(t.google.requests.every((request) => request.headers.authorization !== `Bearer ${issued.access_token}`)).toBe(true);
  });

  it('refreshes once after Google answers 401 to a revoked token, and the call goes through', async () => {
    const spreadsheet = leads();
    const options = t.call();
    t.oauth.expireAccessTokens();
    const before = t.oauth.tokenRequests.length;
    const { output } = await findAda(spreadsheet.id, options);
    expect(output).toMatchObject({ count: 1, rows: [{ row_number: 2 }] });
    expect(t.oauth.tokenRequests.slice(before).map((form) => form.grant_type)).toEqual(['refresh_token']);
    // The first request, with the revoked token, was refused; the same request and the rest carried the new one.
    const [refused, ...rest] = t.google.requests;
    expect(refused.headers.authorization).toBe(`Bearer ${options.connection.credentials.access_token}`);
    expect(rest.length).toBeGreaterThan(1);
    expect(rest.every((request) => t.oauth.accepts(request.headers.authorization))).toBe(true);
  });

  it('keeps every credential out of the output and the logs', async () => {
    const spreadsheet = leads();
    const options = t.call();
    const run = await runAction(googleSheetsApp, 'add_row', { spreadsheet_id: spreadsheet.id, worksheet_title: 'Leads', values: { Name: 'Grace' } }, options);
    const everything = JSON.stringify([run.output, run.logs]);
    for (const secret of [options.connection.credentials.access_token, options.connection.credentials.refresh_token, CLIENT.clientSecret]) expect(everything).not.toContain(secret);
  });
});

describe('Google’s failures', () => {
  it('says a 429 is rate limiting, with Google’s wait', async () => {
    const spreadsheet = leads();
    t.google.failNext({ status: 429, headers: { 'retry-after': '30' }, message: "Quota exceeded for quota metric 'Read requests'" });
    const failure = await findAda(spreadsheet.id, t.call()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VendorError);
    expect((failure as VendorError).message).toBe("Google Sheets is rate limiting the connection (429: Quota exceeded for quota metric 'Read requests'); try again in 30 s");
  });

  it('says a 500 is Google failing, naming what was tried', async () => {
    const spreadsheet = leads();
    t.google.failNext({ status: 500, message: 'Internal error encountered.' });
    await expect(findAda(spreadsheet.id, t.call())).rejects.toThrow(`Google Sheets failed to read the worksheets of spreadsheet ${spreadsheet.id} (500: Internal error encountered.)`);
  });

  it('retries a read after a 503, but never an append (Google would add the row twice)', async () => {
    const spreadsheet = leads();
    t.google.failNext({ status: 503 });
    await expect(findAda(spreadsheet.id, t.call())).resolves.toMatchObject({ output: { count: 1 } });

    t.google.failNext({ status: 503, message: 'The service is currently unavailable.', on: ':append' });
    await expect(runAction(googleSheetsApp, 'add_row', { spreadsheet_id: spreadsheet.id, worksheet_title: 'Leads', values: { Name: 'Once' } }, t.call())).rejects.toThrow(
      /^Google Sheets failed to append a row to 'Leads'!A:Z \(503: The service is currently unavailable\.\)$/,
    );
    expect(requestsTo(t.google, 'POST', ':append')).toHaveLength(1);
    expect(t.google.rowsOf(spreadsheet.id, 'Leads')).toHaveLength(2);
  });

  it('asks for a new authorization when Google refuses the refresh token', async () => {
    const oauth = await startOAuthServer({ ...CLIENT, tokenPath: '/token' });
    const google = await startGoogleSheetsServer({ oauth });
    try {
      const spreadsheet = google.addSpreadsheet('Leads', { Leads: [['Name']] });
      const options = t.call(oauth.issue());
      options.config = { ...t.config, googleSheetsTokenUrl: `${oauth.url}/token`, googleSheetsApiBaseUrl: google.url };
      options.deps = { config: { get: (key: string) => options.config[key] } };
      oauth.expireAccessTokens();
      oauth.revokeRefreshTokens();
      await expect(findAda(spreadsheet.id, options)).rejects.toThrow(ConnectionNeedsReauth);
    } finally {
      await google.close();
      await oauth.close();
    }
  });
});

describe('in a running Switchboard', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({
      plugins: PLUGINS,
      role: 'serve',
      config: {
        flows: { oauthRedirectUrl: 'https://switchboard.example.com/oauth/callback' },
        'app-google-sheets': { ...t.config },
      },
    });
  });
  afterAll(() => kit?.stop());

  it('is in the catalog with its trigger, actions and searchable option lists, inputs linked to them', async () => {
    const app = (await kit.api.get('/api/v1/flow/apps/google_sheets').expect(200)).body.data;
    expect(app).toMatchObject({ uid: 'google_sheets', name: 'Google Sheets', category: 'connect', auth: { type: 'oauth2' } });
    expect(app.triggers.map((trigger: { key: string }) => trigger.key)).toEqual(['new_row']);
    expect(app.actions.map((action: { key: string }) => action.key)).toEqual(['add_row', 'update_row', 'find_rows']);
    expect(app.options.map((list: { kind: string; searchable: boolean }) => [list.kind, list.searchable])).toEqual([
      ['spreadsheets', true],
      ['worksheets', true],
      ['columns', true],
    ]);
    const update = app.actions.find((action: { key: string }) => action.key === 'update_row').input_schema.properties;
    expect(update.worksheet_title['x-options']).toEqual({ kind: 'worksheets', params: { spreadsheet_id: '{{config.spreadsheet_id}}' }, dependsOn: ['spreadsheet_id'] });
    expect(update.lookup_column['x-options']).toMatchObject({ kind: 'columns', dependsOn: ['spreadsheet_id', 'worksheet_title'] });
  });

  it('connects a Google account through OAuth and lists its spreadsheets with the stored tokens', async () => {
    const spreadsheet = leads();
    const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'google_sheets', label: 'Work account' }).expect(200);
    const url = new URL(started.body.data.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.oauth.url}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      access_type: 'offline',
      prompt: 'consent',
      scope: 'https://www.googleapis.com/auth/spreadsheets https://www.googleapis.com/auth/drive.metadata.readonly',
      redirect_uri: 'https://switchboard.example.com/oauth/callback',
    });
    const back = new URL(t.oauth.consent(started.body.data.authorization_url));
    const callback = await kit.client({}).get(`${back.pathname}${back.search}`).expect(200);
    expect(callback.body.data).toMatchObject({ app_uid: 'google_sheets', label: 'Work account', status: 'connected' });

    const listed = await kit.api
      .post('/api/v1/flow/apps/google_sheets/options')
      .send({ kind: 'spreadsheets', connection_uuid: callback.body.data.uuid, params: {} })
      .expect(200);
    expect(listed.body.data).toEqual([{ label: 'Leads', value: spreadsheet.id }]);

    // A refusal the user can fix is a state of the list, not an error.
    t.google.failNext({ status: 403, message: 'Request had insufficient authentication scopes.' });
    const refused = await kit.api
      .post('/api/v1/flow/apps/google_sheets/options')
      .send({ kind: 'spreadsheets', connection_uuid: callback.body.data.uuid, params: {} })
      .expect(200);
    expect(refused.body).toMatchObject({ data: [], state: 'unavailable' });
    expect(JSON.stringify(kit.logs)).not.toMatch(/access-[0-9a-f]{24}|refresh-[0-9a-f]{24}/);
  });
});
