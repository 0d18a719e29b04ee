import path from 'node:path';
import { startTestKernel, type TestKernel } from 'switchboard/core/testing';
import { inputProblems, loadOptions, runAction, runTrigger, useVendorServer } from 'switchboard/flows/testing';
import { acmeLeadsApp } from '../app';
import { createLead } from '../create-lead';
import { acmeLeadsRoutes, acmeLeadsState, API_KEY } from './vendor-double';

/**
 * The plugins a test kernel needs for this app, each loaded from its folder as an
 * installation loads it: the flows plugin and the agents plugin it builds on (from the
 * Switchboard installation), and this plugin.
 */
const INSTALLATION = path.dirname(require.resolve('switchboard/package.json'));
const PLUGINS = [path.join(INSTALLATION, 'plugins/agents'), path.join(INSTALLATION, 'plugins/flows'), path.resolve(__dirname, '..')];

const vendor = useVendorServer(acmeLeadsRoutes, { state: acmeLeadsState() });

/** A step's connection to the vendor double (the test kernel's egress client lets calls reach 127.0.0.1). */
const connection = (apiKey = API_KEY) => ({ connection: { credentials: { base_url: vendor.url, api_key: apiKey } } });

describe('the Acme Leads flow app', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: PLUGINS });
  });
  afterAll(() => kit?.stop());

  it('is in the flow catalog once its plugin loads', async () => {
    const res = await kit.api.get('/api/v1/flow/apps/acme_leads').expect(200);
    expect(res.body.data).toMatchObject({ uid: 'acme_leads', category: 'connect', requires_connection: true, triggers_count: 1, actions_count: 1 });
  });

  it('stores a connection only with an API key Acme Leads accepts', async () => {
    const body = (apiKey: string) => ({ app_uid: 'acme_leads', label: 'Acme Leads', credentials: { base_url: vendor.url, api_key: apiKey } });
    const refused = await kit.api.post('/api/v1/flow/connections').send(body('wrong-key')).expect(422);
    expect(refused.body.errors).toEqual({ credentials: ['Acme Leads does not accept this API key'] });
    await kit.api.post('/api/v1/flow/connections').send(body(API_KEY)).expect(201);
  });

  it('lists the account’s lists, searched and paged by Acme Leads', async () => {
    const first = await loadOptions(acmeLeadsApp, 'lists', {}, { kit, ...connection(), search: 'news' });
    expect(first.result).toEqual({
      options: [
        { label: 'Newsletter', value: 'lst_1' },
        { label: 'Newsletter (archive)', value: 'lst_3' },
      ],
      nextCursor: null,
    });
    const page = await loadOptions(acmeLeadsApp, 'lists', {}, { kit, ...connection() });
    expect(page.result).toMatchObject({ options: [{ value: 'lst_1' }, { value: 'lst_2' }], nextCursor: '2' });
    const next = await loadOptions(acmeLeadsApp, 'lists', {}, { kit, ...connection(), cursor: '2' });
    expect(next.result).toMatchObject({ options: [{ value: 'lst_3' }, { value: 'lst_4' }], nextCursor: null });
  });

  it('says the list is unavailable while Acme Leads refuses the connection’s key', async () => {
    const { result } = await loadOptions(acmeLeadsApp, 'lists', {}, { kit, ...connection('revoked-key') });
    expect(result).toEqual({ state: 'unavailable', message: 'Acme Leads refuses this connection’s API key: update the connection' });
  });

  it('new_lead takes the newest lead as its baseline, then starts one execution per lead added', async () => {
    const baseline = await runTrigger(acmeLeadsApp, 'new_lead', { list_id: 'lst_1' }, { kit, ...connection() });
    expect(baseline).toMatchObject({ outputs: [], cursor: 2 });

    vendor.state.leads.push({ id: 3, list_id: 'lst_1', email: 'grace@example.com', name: 'Grace Hopper', created_at: '2025-01-06T09:20:00Z' });
    const poll = await runTrigger(acmeLeadsApp, 'new_lead', { list_id: 'lst_1' }, { kit, ...connection(), cursor: baseline.cursor });
    expect(poll.outputs).toEqual([{ id: 3, list_id: 'lst_1', email: 'grace@example.com', name: 'Grace Hopper', created_at: '2025-01-06T09:20:00Z' }]);
    expect(poll.cursor).toBe(3);

    const quiet = await runTrigger(acmeLeadsApp, 'new_lead', { list_id: 'lst_1' }, { kit, ...connection(), cursor: poll.cursor });
    expect(quiet).toMatchObject({ outputs: [], cursor: 3 });
  });

  it('create_lead adds the lead once, whatever a retry of the step sends again', async () => {
    const input = { list_id: 'lst_2', email: 'katherine@example.com', name: 'Katherine Johnson' };
    const run = await runAction(acmeLeadsApp, 'create_lead', input, { kit, ...connection() });
    expect(run.output).toMatchObject({ list_id: 'lst_2', email: 'katherine@example.com', name: 'Katherine Johnson' });
    const sent = vendor.requests.at(-1)!;
    expect(sent.headers).toMatchObject({ authorization: `Bearer ${API_KEY}`, 'idempotency-key': run.idempotencyKey });

    // The same step of the same execution, run again after a crash, sends the same key.
    const [executionUuid, stepUuid] = run.idempotencyKey.split(':');
    const again = await runAction(acmeLeadsApp, 'create_lead', input, { kit, ...connection(), executionUuid, step: { stepUuid } });
    expect(again.idempotencyKey).toBe(run.idempotencyKey);
    expect(again.output).toEqual(run.output);
    expect(vendor.state.leads.filter((lead) => lead.email === 'katherine@example.com')).toHaveLength(1);
  });

  it('fails the step when Acme Leads refuses the API key', async () => {
    await expect(runAction(acmeLeadsApp, 'create_lead', { list_id: 'lst_2', email: 'ada@example.com' }, { kit, ...connection('revoked-key') })).rejects.toThrow(
      'Acme Leads answered 401 to POST /v1/lists/lst_2/leads',
    );
  });

  it('refuses a step config without a list, or with an address that is not one, by path', () => {
    expect(inputProblems(createLead, { email: 'not an address' })).toEqual({ 'config.list_id': ['is required'], 'config.email': ['must match format "email"'] });
    expect(inputProblems(createLead, { list_id: 'lst_1', email: 'ada@example.com' })).toEqual({});
  });
});
