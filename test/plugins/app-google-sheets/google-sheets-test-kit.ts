import { createEgress, type Egress } from '../../../core/egress';
import { captureLogger } from '../../../core/testing';
import { startOAuthServer, type OAuthServer } from '../../../plugins/flows/testing-kit';
import { startGoogleSheetsServer, type GoogleSheetsServer } from './google-sheets-server';

/**
 * What every Google Sheets app test uses (not a test file itself): the fake Google
 * authorization server and APIs on loopback, an egress client allowed to reach them, and
 * the call options the kit's runAction, runTrigger and loadOptions take.
 */

export const CLIENT = { clientId: 'sheets-client-id', clientSecret: 'sheets-client-secret' };

export interface SheetsTest {
  oauth: OAuthServer;
  google: GoogleSheetsServer;
  egress: Egress;
  config: Record<string, string>;
  /** Call options with a connection holding freshly issued tokens (`credentials` to replace them). */
  call(credentials?: Record<string, unknown>): {
    connection: { credentials: Record<string, unknown> };
    egress: Egress;
    config: Record<string, string>;
    deps: { config: { get(key: string): unknown } };
  };
}

/** Starts the fakes in `beforeAll` and closes them in `afterAll`; read the members from tests. */
export function useSheetsTest(): SheetsTest {
  const test = {} as SheetsTest;
  beforeAll(async () => {
    test.oauth = await startOAuthServer({ ...CLIENT, authorizePath: '/o/oauth2/v2/auth', tokenPath: '/token' });
    test.google = await startGoogleSheetsServer({ oauth: test.oauth });
    // Loopback is refused by default: allow it, as the test kernel does. Short backoff: 5xx retries stay quick.
    test.egress = createEgress(
      { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 10 * 1024 * 1024, egressMaxRetries: 2 },
      captureLogger().logger,
      { retryBackoffMs: 1 },
    );
    test.config = {
      googleSheetsClientId: CLIENT.clientId,
      googleSheetsClientSecret: CLIENT.clientSecret,
      googleSheetsAccountsUrl: test.oauth.url,
      googleSheetsTokenUrl: `${test.oauth.url}/token`,
      googleSheetsApiBaseUrl: test.google.url,
      googleSheetsDriveApiBaseUrl: `${test.google.url}/`,
    };
    test.call = (credentials) => ({
      connection: { credentials: credentials ?? { ...test.oauth.issue() } },
      egress: test.egress,
      config: test.config,
      deps: { config: { get: (key: string) => test.config[key] } },
    });
  });
  afterAll(async () => {
    await test.google?.close();
    await test.oauth?.close();
  });
  beforeEach(() => {
    test.google.state.spreadsheets.length = 0;
    test.google.state.otherFiles.length = 0;
    test.google.state.failures.length = 0;
    test.google.state.drivePageLimit = 1000;
    test.google.requests.length = 0;
  });
  return test;
}

/** The requests the fake received on a path (`/v4/spreadsheets/...`), the auth check's 401s included. */
export const requestsTo = (google: GoogleSheetsServer, method: string, pathPart: string) => google.requests.filter((request) => request.method === method && request.path.includes(pathPart));
