import crypto from 'node:crypto';
import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startOAuthServer, type OAuthServer, type VendorServer } from '../../../plugins/flows/testing-kit';
import { startRadicaleServer, type RadicaleServer } from '../../plugins/app-caldav/radicale-server';
import { startGoogleCalendarServer, type GoogleCalendarServer } from '../../plugins/app-google-calendar/google-calendar-server';
import { startGoogleSheetsServer, type GoogleSheetsServer } from '../../plugins/app-google-sheets/google-sheets-server';
import { HUBSPOT_OAUTH_PATHS, startHubSpotServer, type HubSpotServer } from '../../plugins/app-hubspot-crm/hubspot-server';
import { startZohoServer, type ZohoState } from '../../plugins/app-zoho-crm/zoho-server';

/**
 * An install with every connect app, each pointed at a local vendor server that follows
 * the vendor's documented shapes (CalDAV: a real Radicale), for end-to-end flow tests:
 * one API process (`serve`) and worker processes started and stopped at will, on one
 * database, broker namespace and secrets key.
 */
const APPS = ['app-logic', 'app-zoho-crm', 'app-hubspot-crm', 'app-google-calendar', 'app-caldav', 'app-google-sheets'];
const PLUGINS = ['agents', 'flows', ...APPS].map((id) => path.resolve(__dirname, '../../../plugins', id));
const TRANSPORT = process.env.AMQP_URL ? { amqpUrl: process.env.AMQP_URL } : {};
const REDIRECT = 'https://switchboard.example.com/oauth/callback';
const client = (name: string) => ({ clientId: `${name}-e2e`, clientSecret: `${name}-e2e-secret` });
export const CALDAV_USER = { name: 'alice', password: 'alice-e2e-password' };

export interface ConnectAppsInstall {
  accounts: { zoho: OAuthServer; hubspot: OAuthServer; calendar: OAuthServer; sheets: OAuthServer };
  zoho: VendorServer<ZohoState>;
  hubspot: HubSpotServer;
  calendar: GoogleCalendarServer;
  sheets: GoogleSheetsServer;
  radicale: RadicaleServer;
  api: TestKernel;
  /** Starts a worker process of the install (executions, polls). */
  startWorker(name: string): Promise<TestKernel>;
  /** Connects an OAuth app as a user would: start, consent at the vendor, the browser's way back to the callback. */
  connect(appUid: string, accounts: OAuthServer): Promise<string>;
  sql(query: string, params?: unknown[]): Promise<any[]>;
  close(): Promise<void>;
}

export async function startConnectAppsInstall(): Promise<ConnectAppsInstall> {
  const clients = { zoho: client('zoho'), hubspot: client('hubspot'), calendar: client('calendar'), sheets: client('sheets') };
  const accounts = {
    zoho: await startOAuthServer({ ...clients.zoho, authorizePath: '/oauth/v2/auth', tokenPath: '/oauth/v2/token' }),
    hubspot: await startOAuthServer({ ...clients.hubspot, ...HUBSPOT_OAUTH_PATHS }),
    calendar: await startOAuthServer({ ...clients.calendar, authorizePath: '/o/oauth2/v2/auth', tokenPath: '/token' }),
    sheets: await startOAuthServer({ ...clients.sheets, authorizePath: '/o/oauth2/v2/auth', tokenPath: '/token' }),
  };
  const zoho = await startZohoServer({ oauth: accounts.zoho });
  const hubspot = await startHubSpotServer({ oauth: accounts.hubspot });
  const calendar = await startGoogleCalendarServer({ oauth: accounts.calendar, calendars: [{ id: 'sales@example.com', summary: 'Sales', primary: true }] });
  const sheets = await startGoogleSheetsServer({ oauth: accounts.sheets });
  const radicale = await startRadicaleServer({ users: { [CALDAV_USER.name]: CALDAV_USER.password } });

  let shared: Record<string, unknown> = { secretsKey: crypto.randomBytes(32).toString('base64') };
  const config = (): Record<string, unknown> => ({
    flows: { oauthRedirectUrl: REDIRECT, pollIntervalSeconds: 1 },
    'app-zoho-crm': { zohoClientId: clients.zoho.clientId, zohoClientSecret: clients.zoho.clientSecret, zohoAccountsUrl: accounts.zoho.url, zohoApiBaseUrl: zoho.url },
    'app-hubspot-crm': {
      hubspotClientId: clients.hubspot.clientId,
      hubspotClientSecret: clients.hubspot.clientSecret,
      hubspotAccountsUrl: accounts.hubspot.url,
      hubspotApiBaseUrl: hubspot.url,
      // The fake's search shows a change at once: no need to wait for it to settle.
      hubspotPollSettleSeconds: 0,
    },
    'app-google-calendar': {
      googleCalendarClientId: clients.calendar.clientId,
      googleCalendarClientSecret: clients.calendar.clientSecret,
      googleCalendarAccountsUrl: accounts.calendar.url,
      googleCalendarTokenUrl: `${accounts.calendar.url}/token`,
      googleCalendarApiBaseUrl: calendar.url,
    },
    'app-google-sheets': {
      googleSheetsClientId: clients.sheets.clientId,
      googleSheetsClientSecret: clients.sheets.clientSecret,
      googleSheetsAccountsUrl: accounts.sheets.url,
      googleSheetsTokenUrl: `${accounts.sheets.url}/token`,
      googleSheetsApiBaseUrl: sheets.url,
      googleSheetsDriveApiBaseUrl: `${sheets.url}/`,
    },
    ...TRANSPORT,
    busPollIntervalMs: 100,
    // A worker stopped mid-work leaves what it had claimed leased until the lease runs out: keep that short here.
    busLeaseSeconds: 5,
    ...shared,
  });
  // The API process serves requests only; workers run executions and polls.
  const api = await startTestKernel({ plugins: PLUGINS, role: 'serve', config: config() });
  shared = { ...shared, databaseUrl: api.kernel.config.core.databaseUrl, busNamespace: api.kernel.config.core.busNamespace };
  const workers = new Set<TestKernel>();

  return {
    accounts,
    zoho,
    hubspot,
    calendar,
    sheets,
    radicale,
    api,
    async startWorker(name) {
      const worker = await startTestKernel({ plugins: PLUGINS, role: 'worker', tenant: name, config: config() });
      const stop = worker.stop;
      workers.add(worker);
      worker.stop = async () => {
        workers.delete(worker);
        await stop();
      };
      return worker;
    },
    async connect(appUid, server) {
      const started = await api.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: appUid, label: `${appUid} e2e` }).expect(200);
      const back = new URL(server.consent(started.body.data.authorization_url));
      const callback = await api.client({}).get(`${back.pathname}${back.search}`).expect(200);
      return callback.body.data.uuid;
    },
    sql: (query, params = []) => api.kernel.orm.em.fork().getConnection().execute(query, params),
    async close() {
      for (const worker of [...workers]) await worker.stop();
      await api.stop();
      for (const server of [zoho, hubspot, calendar, sheets, radicale, ...Object.values(accounts)]) await server.close();
    },
  };
}

/**
 * What the install's processes logged at warn and above, and the bus's pending polls and
 * executions' segments: printed when a wait across a worker restart times out, so a
 * failure that shows only under load says what the processes saw.
 */
export async function describeInstall(install: ConnectAppsInstall, worker: TestKernel): Promise<string> {
  const loud = (logs: Array<Record<string, unknown>>) => logs.filter((line) => line.level === 'warn' || line.level === 'error').slice(-40);
  const outbox = await install.sql("select topic, consumer, dedupe_key, due_at, locked_until, attempt from bus_outbox order by due_at limit 40").catch((error) => String(error));
  const cursors = await install.sql('select version_uuid, revision, updated_at from flow_trigger_cursors order by updated_at').catch((error) => String(error));
  return JSON.stringify({ worker: loud(worker.logs), api: loud(install.api.logs), outbox, cursors, now: new Date().toISOString() }, null, 1);
}

/** The install for a test file: started before its tests with one worker running, closed after them. */
export function useConnectAppsInstall(): { readonly install: ConnectAppsInstall; worker: TestKernel } {
  const held = {} as { install: ConnectAppsInstall; worker: TestKernel };
  beforeAll(async () => {
    held.install = await startConnectAppsInstall();
    held.worker = await held.install.startWorker('worker-one');
  });
  afterAll(() => held.install?.close());
  return held;
}
