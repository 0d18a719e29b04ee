import { createEgress } from '../../../core/egress';
import { captureLogger } from '../../../core/testing';
import { startOAuthServer, type OAuthServer } from '../../../plugins/flows/testing-kit';
import { HUBSPOT_OAUTH_PATHS, startHubSpotServer, type HubSpotServer } from './hubspot-server';

export const CLIENT = { clientId: 'hubspot-client-id', clientSecret: 'hubspot-client-secret-42' };

/**
 * The fake authorization server and HubSpot API for a test file, started once, and what
 * every kit call is given: a loopback-allowed egress client, the app's config and a
 * connection holding freshly issued tokens. State is reset before each test.
 */
export function useHubSpot() {
  const world = {} as { oauth: OAuthServer; hubspot: HubSpotServer; egress: ReturnType<typeof createEgress>; values: Record<string, unknown> };
  beforeAll(async () => {
    world.oauth = await startOAuthServer({ ...CLIENT, ...HUBSPOT_OAUTH_PATHS, accessTokenTtlSeconds: 1800 });
    world.hubspot = await startHubSpotServer({ oauth: world.oauth });
    world.egress = createEgress(
      { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10_000, egressMaxResponseBytes: 1_000_000, egressMaxRetries: 0 },
      captureLogger().logger,
    );
    world.values = {
      hubspotClientId: CLIENT.clientId,
      hubspotClientSecret: CLIENT.clientSecret,
      hubspotAccountsUrl: world.oauth.url,
      hubspotApiBaseUrl: world.hubspot.url,
      hubspotPollSettleSeconds: 0,
    };
  });
  afterAll(async () => {
    await world.hubspot?.close();
    await world.oauth?.close();
  });
  beforeEach(() => {
    const { state } = world.hubspot;
    for (const type of Object.keys(state.records)) state.records[type] = [];
    state.failNext = [];
    state.customScopeGranted = true;
    state.now = () => Date.now();
    world.hubspot.requests.length = 0;
    world.oauth.tokenRequests.length = 0;
  });

  /** What runAction, runTrigger and loadOptions take: `credentials` default to newly issued tokens. */
  const options = (credentials: Record<string, unknown> = world.oauth.issue(), values: Record<string, unknown> = {}) => {
    const config = { ...world.values, ...values };
    return { egress: world.egress, connection: { credentials }, config, deps: { config: { get: (key: string) => config[key] } } };
  };

  /** The requests HubSpot's API received (the token endpoint's too), by `METHOD /path`. */
  const received = (route?: string) => world.hubspot.requests.filter((request) => !route || `${request.method} ${request.path}` === route);

  return { world, options, received };
}
