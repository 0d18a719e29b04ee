import { createEgress, type Egress } from '../../../core/egress';
import { captureLogger } from '../../../core/testing';
import { startOAuthServer, type AppCallOptions, type IssuedTokens, type OAuthServer, type VendorServer } from '../../../plugins/flows/testing-kit';
import { defaultZohoState, startZohoServer, type ZohoState } from './zoho-server';

/** Shared setup of the Zoho CRM app tests (not a test file itself): the fake Zoho accounts and API servers, and how to call the app against them. */

export const CLIENT = { zohoClientId: '1000.TESTCLIENT', zohoClientSecret: 'zoho-client-secret-5f2a' };

export interface ZohoSetup {
  oauth: OAuthServer;
  zoho: VendorServer<ZohoState>;
  /** Lines the egress client logged (the app's own logs come back from each kit call). */
  egressLogs: Array<Record<string, unknown>>;
  /** Kit options for one call: a connection with fresh tokens (or `credentials`), the app's config and deps. */
  call(credentials?: Record<string, unknown>): AppCallOptions & { connection: { credentials: Record<string, unknown> } };
  /** Tokens issued by the fake authorization server, as a connection stores them. */
  tokens(): IssuedTokens;
}

/** Egress as the kernel builds it, loopback allowed (the fakes listen there), no retries so each failure is seen once. */
function loopbackEgress(): { egress: Egress; lines: Array<Record<string, unknown>> } {
  const { logger, lines } = captureLogger();
  const egress = createEgress(
    { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 4 * 1024 * 1024, egressMaxRetries: 0 },
    logger,
  );
  return { egress, lines };
}

/** Starts the fakes for a test file (beforeAll/afterAll); `reset` gives each test an empty Zoho. */
export function useZoho(options: { tokensFrom?: number } = {}): ZohoSetup {
  let oauth: OAuthServer | undefined;
  let zoho: VendorServer<ZohoState> | undefined;
  let egress: Egress | undefined;
  let egressLogs: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    oauth = await startOAuthServer({ clientId: CLIENT.zohoClientId, clientSecret: CLIENT.zohoClientSecret, authorizePath: '/oauth/v2/auth', tokenPath: '/oauth/v2/token' });
    zoho = await startZohoServer({ oauth, tokensFrom: options.tokensFrom });
    ({ egress, lines: egressLogs } = loopbackEgress());
  });
  // Each test starts with Zoho's standard modules and no records, and an empty request log.
  beforeEach(() => {
    if (!zoho) return;
    Object.assign(zoho.state, defaultZohoState());
    zoho.requests.length = 0;
  });
  afterAll(async () => {
    await zoho?.close();
    await oauth?.close();
    await egress?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the Zoho fakes start in beforeAll');
    return value;
  };
  return {
    get oauth() {
      return started(oauth);
    },
    get zoho() {
      return started(zoho);
    },
    get egressLogs() {
      return egressLogs;
    },
    tokens: () => started(oauth).issue(),
    call(credentials) {
      const values: Record<string, unknown> = { ...CLIENT, zohoAccountsUrl: started(oauth).url, zohoApiBaseUrl: started(zoho).url };
      return {
        egress: started(egress),
        connection: { credentials: credentials ?? started(oauth).issue() },
        config: values,
        deps: { config: { get: (key: string) => values[key] } },
      };
    },
  };
}

/** The requests Zoho received for a path (without the query), in order. */
export const requestsTo = (zoho: VendorServer<ZohoState>, method: string, path: string) => zoho.requests.filter((request) => request.method === method && request.path === path);
