import { googleCalendarApp } from '../../../plugins/app-google-calendar';
import { ConnectionNeedsReauth, VendorError } from '../../../plugins/flows';
import { loadOptions, runAction, runTrigger } from '../../../plugins/flows/testing-kit';
import { CLIENT, useCalendarVendor } from './calendar-test-setup';

const vendor = useCalendarVendor();
const CALENDAR = 'ada@example.com';
const listCalendars = (options = vendor.call()) => loadOptions(googleCalendarApp, 'calendars', {}, options);

describe('the Google Calendar connection', () => {
  it('refreshes an access token about to expire before calling, with the operator’s client, and calls with the new one', async () => {
    const options = vendor.call({ tokens: { expires_at: new Date(Date.now() + 10_000).toISOString() } });
    const stale = options.connection.credentials.access_token;
    const refreshes = vendor.oauth.tokenRequests.length;
    const sent = vendor.google.requests.length;
    await listCalendars(options);
    expect(vendor.oauth.tokenRequests.slice(refreshes)).toEqual([
      expect.objectContaining({ grant_type: 'refresh_token', refresh_token: options.connection.credentials.refresh_token, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret }),
    ]);
    // One call, already with the refreshed token (the fake accepts only live tokens it issued).
    const calls = vendor.google.requests.slice(sent);
    expect(calls).toHaveLength(1);
    expect(calls[0].headers.authorization).toMatch(/^Bearer access-[0-9a-f]{24}$/);
    expect(calls[0].headers.authorization).not.toBe(`Bearer ${String(stale)}`);
  });

  it('refreshes once when Google refuses the access token (401), and the call then succeeds', async () => {
    const options = vendor.call();
    vendor.oauth.expireAccessTokens();
    const refreshes = vendor.oauth.tokenRequests.length;
    const sent = vendor.google.requests.length;
    const { result } = await listCalendars(options);
    expect(result).toMatchObject({ options: [{ value: CALENDAR }] });
    expect(vendor.oauth.tokenRequests.length - refreshes).toBe(1);
    expect(vendor.google.requests.length - sent).toBe(2);
  });

  it('a refresh token Google revoked asks for the app to be connected again', async () => {
    const options = vendor.call();
    vendor.oauth.expireAccessTokens();
    vendor.oauth.revokeRefreshTokens();
    await expect(listCalendars(options)).rejects.toBeInstanceOf(ConnectionNeedsReauth);
  });
});

describe('Google’s refusals and failures', () => {
  // The describe above revoked every refresh token of its authorization server: these tests get fake Google servers of their own.
  const fresh = useCalendarVendor();

  it('a long 429 becomes a VendorError that says to wait, not a 500', async () => {
    fresh.google.state.failNext({ status: 429, headers: { 'retry-after': '120' }, body: { error: { code: 429, message: 'Rate Limit Exceeded' } } });
    const error = (await runAction(googleCalendarApp, 'delete_event', { calendar_id: CALENDAR, event_id: 'whatever1' }, fresh.call()).catch((caught: unknown) => caught)) as VendorError;
    expect(error).toBeInstanceOf(VendorError);
    expect(error.message).toBe('Google Calendar is rate limiting the connection (429: Rate Limit Exceeded); try again in 120 s');
    expect(error.retryAfterSeconds).toBe(120);
  });

  it('a short 429 is waited out and the call goes through', async () => {
    fresh.google.state.failNext({ status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 429, message: 'Rate Limit Exceeded' } } });
    const { result } = await loadOptions(googleCalendarApp, 'calendars', {}, fresh.call());
    expect(result).toMatchObject({ options: [{ value: CALENDAR }] });
  });

  it('a 5xx fails the poll with Google’s words, keeping the cursor for the next try', async () => {
    const baseline = await runTrigger(googleCalendarApp, 'event_created_or_changed', { calendar_id: CALENDAR }, fresh.call());
    fresh.google.state.failNext({ status: 503, body: { error: { code: 503, message: 'Backend Error' } } });
    const error = (await runTrigger(googleCalendarApp, 'event_created_or_changed', { calendar_id: CALENDAR }, { ...fresh.call(), cursor: baseline.cursor }).catch(
      (caught: unknown) => caught,
    )) as VendorError;
    expect(error.message).toBe(`Google Calendar failed to list the changed events of calendar ${CALENDAR} (503: Backend Error)`);
    expect(error.refused).toBe(false);
  });

  it('puts no credential in an action’s output or logs', async () => {
    const options = fresh.call({ tokens: { expires_at: new Date(Date.now() + 1000).toISOString() } });
    const stale = { ...options.connection.credentials };
    const run = await runAction(googleCalendarApp, 'create_event', { calendar_id: CALENDAR, summary: 'Secretless', start: '2025-03-10T10:00:00Z', end: '2025-03-10T11:00:00Z' }, options);
    const everything = JSON.stringify([run.output, run.logs]);
    for (const secret of [stale.access_token, stale.refresh_token, options.connection.credentials.access_token, CLIENT.clientSecret]) expect(everything).not.toContain(String(secret));
    expect(everything).not.toMatch(/access-[0-9a-f]{24}|refresh-[0-9a-f]{24}/);
  });
});
