import path from 'node:path';
import { startTestKernel, type TestKernel } from 'switchboard/core/testing';
import { inputProblems, loadOptions, runAction, runTrigger, useVendorServer } from 'switchboard/flows/testing';
import { acmeLeadsApp } from '../app';
import { createLead, createLeadV1 } from '../create-lead';
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
    expect(res.body.data).toMatchObject({ uid: 'acme_leads', version: '1.1.0', category: 'connect', requires_connection: true, triggers_count: 1, actions_count: 1 });
    // New steps get version 2 of create_lead; steps built on version 1 keep it.
    expect(res.body.data.actions).toEqual([expect.objectContaining({ key: 'create_lead', version: 2, versions: [1, 2] })]);
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

    const grace = { id: 3, list_id: 'lst_1', email: 'grace@example.com', name: 'Grace Hopper', tags: [], created_at: '2025-01-06T09:20:00Z' };
    vendor.state.leads.push(grace);
    const poll = await runTrigger(acmeLeadsApp, 'new_lead', { list_id: 'lst_1' }, { kit, ...connection(), cursor: baseline.cursor });
    expect(poll.outputs).toEqual([grace]);
    expect(poll.cursor).toBe(3);

    const quiet = await runTrigger(acmeLeadsApp, 'new_lead', { list_id: 'lst_1' }, { kit, ...connection(), cursor: poll.cursor });
    expect(quiet).toMatchObject({ outputs: [], cursor: 3 });
  });

  it('create_lead adds the lead once, whatever a retry of the step sends again', async () => {
    const input = { list_id: 'lst_2', email: 'katherine@example.com', name: 'Katherine Johnson', tags: ['nasa', 'webinar'] };
    const run = await runAction(acmeLeadsApp, 'create_lead', input, { kit, ...connection() });
    expect(run.output).toMatchObject({ list_id: 'lst_2', email: 'katherine@example.com', name: 'Katherine Johnson', tags: ['nasa', 'webinar'] });
    const sent = vendor.requests.at(-1)!;
    expect(sent.headers).toMatchObject({ authorization: `Bearer ${API_KEY}`, 'idempotency-key': run.idempotencyKey });

    // The same step of the same execution, run again after a crash, sends the same key.
    const [executionUuid, stepUuid] = run.idempotencyKey.split(':');
    const again = await runAction(acmeLeadsApp, 'create_lead', input, { kit, ...connection(), executionUuid, step: { stepUuid } });
    expect(again.idempotencyKey).toBe(run.idempotencyKey);
    expect(again.output).toEqual(run.output);
    expect(vendor.state.leads.filter((lead) => lead.email === 'katherine@example.com')).toHaveLength(1);
  });

  it('create_lead version 1 still runs for the steps built on it, sending its one tag', async () => {
    const run = await runAction(acmeLeadsApp, 'create_lead', { list_id: 'lst_2', email: 'mary@example.com', tag: 'webinar' }, { kit, ...connection(), version: 1 });
    expect(run.output).toMatchObject({ email: 'mary@example.com', tags: ['webinar'] });
  });

  it('create_lead version 2 upgrades a version-1 config: its tag becomes the list of tags, a reference moved whole', () => {
    const v1 = { list_id: 'lst_2', email: 'dorothy@example.com', tag: '{{#0b9e4c1e-5d3c-4f7a-9a51-2f6f0c8e7d11.source}}' };
    expect(inputProblems(createLeadV1, v1)).toEqual({});
    // What version 1 takes, version 2 refuses: why this is a new version, not an edit.
    expect(inputProblems(createLead, v1)).toEqual({ 'config.tag': ['is not a known member'] });

    const upgraded = createLead.migrate!(v1, 1);
    expect(upgraded).toEqual({ list_id: 'lst_2', email: 'dorothy@example.com', tags: ['{{#0b9e4c1e-5d3c-4f7a-9a51-2f6f0c8e7d11.source}}'] });
    expect(inputProblems(createLead, upgraded)).toEqual({});
    expect(createLead.migrate!({ list_id: 'lst_2', email: 'dorothy@example.com' }, 1)).toEqual({ list_id: 'lst_2', email: 'dorothy@example.com', tags: [] });
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
