import { createEgress, type Egress } from '../../../core/egress';
import { captureLogger } from '../../../core/testing';
import { startOAuthServer, type AppCallOptions, type IssuedTokens, type OAuthServer } from '../../../plugins/flows/testing-kit';
import { startGoogleCalendarServer, type GoogleCalendarServer } from './google-calendar-server';

/** The operator's OAuth client, as registered at the fake Google. */
export const CLIENT = { clientId: 'calendar-client-id', clientSecret: 'calendar-client-secret-42' };
export const TOKEN_PATH = '/token';
export const AUTHORIZE_PATH = '/o/oauth2/v2/auth';

export interface CalendarVendor {
  readonly oauth: OAuthServer;
  readonly google: GoogleCalendarServer;
  /** The app's config values pointing at the fakes. */
  config(): Record<string, string>;
  /** What runAction, runTrigger and loadOptions take: loopback egress, a connection with fresh tokens (or `tokens`), the config. */
  call(options?: { tokens?: Partial<IssuedTokens> }): AppCallOptions & { connection: { credentials: Record<string, unknown> } };
}

/**
 * A fake Google (authorization server and Calendar API) for one test file, with an egress
 * client that may reach loopback and does not retry, so a 5xx reaches the app at once.
 */
export function useCalendarVendor(calendars: Array<{ id: string; summary: string; primary?: boolean }> = [{ id: 'ada@example.com', summary: 'Ada Lovelace', primary: true }]): CalendarVendor {
  let oauth: OAuthServer | undefined;
  let google: GoogleCalendarServer | undefined;
  let egress: Egress | undefined;
  beforeAll(async () => {
    oauth = await startOAuthServer({ ...CLIENT, authorizePath: AUTHORIZE_PATH, tokenPath: TOKEN_PATH });
    google = await startGoogleCalendarServer({ oauth, calendars });
    egress = createEgress(
      { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 10 * 1024 * 1024, egressMaxRetries: 0 },
      captureLogger().logger,
    );
  });
  afterAll(async () => {
    await egress?.close();
    await google?.close();
    await oauth?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the fake Google starts in beforeAll');
    return value;
  };
  const vendor: CalendarVendor = {
    get oauth() {
      return started(oauth);
    },
    get google() {
      return started(google);
    },
    config: () => ({
      googleCalendarClientId: CLIENT.clientId,
      googleCalendarClientSecret: CLIENT.clientSecret,
      googleCalendarAccountsUrl: started(oauth).url,
      googleCalendarTokenUrl: `${started(oauth).url}${TOKEN_PATH}`,
      googleCalendarApiBaseUrl: started(google).url,
    }),
    call(options = {}) {
      const config = vendor.config();
      return {
        egress: started(egress),
        config,
        deps: { config: { get: (key: string) => config[key], all: () => config } },
        connection: { credentials: { ...started(oauth).issue(), token_type: 'Bearer', ...options.tokens } },
      };
    },
  };
  return vendor;
}
