import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startOAuthServer, type OAuthServer } from '../../../plugins/flows/testing-kit';
import { AUTHORIZE_PATH, CLIENT, TOKEN_PATH } from './calendar-test-setup';
import { startGoogleCalendarServer, type GoogleCalendarServer } from './google-calendar-server';

const PLUGINS = ['agents', 'flows', 'app-google-calendar'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

let kit: TestKernel;
let oauth: OAuthServer;
let google: GoogleCalendarServer;

beforeAll(async () => {
  oauth = await startOAuthServer({ ...CLIENT, authorizePath: AUTHORIZE_PATH, tokenPath: TOKEN_PATH });
  google = await startGoogleCalendarServer({ oauth, calendars: [{ id: 'ada@example.com', summary: 'Ada Lovelace', primary: true }] });
  kit = await startTestKernel({
    plugins: PLUGINS,
    config: {
      flows: { oauthRedirectUrl: REDIRECT },
      'app-google-calendar': {
        googleCalendarClientId: CLIENT.clientId,
        googleCalendarClientSecret: CLIENT.clientSecret,
        googleCalendarAccountsUrl: oauth.url,
        googleCalendarTokenUrl: `${oauth.url}${TOKEN_PATH}`,
        googleCalendarApiBaseUrl: google.url,
      },
    },
  });
});
afterAll(async () => {
  await kit?.stop();
  await google?.close();
  await oauth?.close();
});

describe('the app-google-calendar plugin', () => {
  it('adds google_calendar to the catalog with its trigger, actions and option lists', async () => {
    const res = await kit.api.get('/api/v1/flow/apps/google_calendar').expect(200);
    const app = res.body.data;
    expect(app).toMatchObject({ uid: 'google_calendar', category: 'connect' });
    const keys = (list: Array<{ key?: string; kind?: string }>) => list.map((item) => item.key ?? item.kind).sort();
    expect(keys(app.triggers)).toEqual(['event_created_or_changed']);
    expect(keys(app.actions)).toEqual(['create_event', 'delete_event', 'find_free_busy', 'update_event']);
  });

  it('connects through Google’s OAuth (offline access, consent, the calendar scope) and lists the account’s calendars with the stored tokens', async () => {
    const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'google_calendar', label: 'Ada’s calendar' }).expect(200);
    const url = new URL(started.body.data.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}${AUTHORIZE_PATH}`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      scope: 'https://www.googleapis.com/auth/calendar',
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
    });
    const back = new URL(oauth.consent(started.body.data.authorization_url));
    const callback = await kit.client({}).get(`${back.pathname}${back.search}`).expect(200);
    expect(oauth.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', client_id: CLIENT.clientId });

    const options = await kit.api
      .post('/api/v1/flow/apps/google_calendar/options')
      .send({ kind: 'calendars', connection_uuid: callback.body.data.uuid, params: {} })
      .expect(200);
    expect(options.body.data).toEqual([{ label: 'Ada Lovelace (primary)', value: 'ada@example.com' }]);
    expect(JSON.stringify(kit.logs)).not.toMatch(/access-[0-9a-f]{24}|refresh-[0-9a-f]{24}/);
  });

  it('an option list Google refuses answers the unavailable state with Google’s reason', async () => {
    const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'google_calendar', label: 'Refused' }).expect(200);
    const back = new URL(oauth.consent(started.body.data.authorization_url));
    const callback = await kit.client({}).get(`${back.pathname}${back.search}`).expect(200);
    google.state.failNext({ status: 403, body: { error: { code: 403, message: 'Insufficient Permission' } } });
    const res = await kit.api.post('/api/v1/flow/apps/google_calendar/options').send({ kind: 'calendars', connection_uuid: callback.body.data.uuid, params: {} }).expect(200);
    expect(res.body).toMatchObject({ state: 'unavailable', message: expect.stringContaining('Insufficient Permission') });
  });
});
