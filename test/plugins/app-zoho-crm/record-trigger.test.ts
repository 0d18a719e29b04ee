import { runTrigger } from '../../../plugins/flows/testing-kit';
import { zohoCrmApp } from '../../../plugins/app-zoho-crm';
import { seedRecord, touchRecord, zohoTimeOf } from './zoho-server';
import { requestsTo, useZoho } from './zoho-test-setup';

const setup = useZoho();

type Json = Record<string, any>;

/** One poll of the trigger on Leads from `cursor`: its events (as the engine stores them) and next cursor. */
async function poll(cursor: unknown, module = 'Leads') {
  const run = await runTrigger(zohoCrmApp, 'record_created_or_updated', { module }, { ...setup.call(), cursor });
  return { events: run.outputs as Json[], cursor: run.cursor };
}

const ids = (events: Json[]) => events.map((event) => event.id);

describe('record_created_or_updated', () => {
  it('takes a baseline first: the records already there never fire', async () => {
    const old = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Old' });
    const newest = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Newest' });

    const first = await poll(null);
    expect(first.events).toEqual([]);
    expect(first.cursor).toEqual({ since: newest.Modified_Time, ids: [newest.id] });
    const [baseline] = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads');
    expect([baseline.query.get('sort_by'), baseline.query.get('sort_order')]).toEqual(['Modified_Time', 'desc']);

    const second = await poll(first.cursor);
    expect(second.events).toEqual([]);
    expect(old.id).not.toBe(newest.id);
  });

  it('fires a new record once, then a change to it once, and nothing when nothing changed', async () => {
    const before = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Before' });
    let { cursor } = await poll(null);

    const lead = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Smith', Email: 'jane.smith@example.com' });
    const created = await poll(cursor);
    expect(created.events).toEqual([{ ...lead }]);
    cursor = created.cursor;

    // Asked with If-Modified-Since, a second before the cursor (Zoho's header is to the second), oldest first.
    const request = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads').at(-1)!;
    expect(Date.parse(String(request.headers['if-modified-since']))).toBe(Date.parse(before.Modified_Time) - 1000);
    expect([request.query.get('sort_by'), request.query.get('sort_order')]).toEqual(['Modified_Time', 'asc']);

    const again = await poll(cursor);
    expect(again.events).toEqual([]);
    expect(again.cursor).toEqual(cursor);

    touchRecord(setup.zoho.state, 'Leads', lead.id, { Company: 'Acme' });
    const changed = await poll(cursor);
    expect(changed.events).toMatchObject([{ id: lead.id, Company: 'Acme' }]);
    expect((await poll(changed.cursor)).events).toEqual([]);
  });

  it('fires records changed in the same second as the cursor once each', async () => {
    let { cursor } = await poll(null);
    const second = setup.zoho.state.now;
    const first = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'First' }, second);
    const polled = await poll(cursor);
    expect(ids(polled.events)).toEqual([first.id]);
    cursor = polled.cursor;
    expect(cursor).toEqual({ since: zohoTimeOf(second), ids: [first.id] });

    // Written later, but within the same second as the cursor.
    const late = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Late' }, second);
    const tied = await poll(cursor);
    expect(ids(tied.events)).toEqual([late.id]);
    expect(tied.cursor).toEqual({ since: zohoTimeOf(second), ids: [first.id, late.id] });
    expect((await poll(tied.cursor)).events).toEqual([]);
  });

  it('compares times, not texts: Zoho writes them with the account’s offset', async () => {
    // Read as text, 23:59:59+05:30 comes after 18:30:00+00:00; it is a second before it.
    const cursor = { since: '2024-05-02T18:30:00+00:00', ids: [] };
    const older = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Older' }, Date.parse('2024-05-02T18:29:59Z'));
    const newer = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Newer' }, Date.parse('2024-05-02T18:30:01Z'));
    expect(older.Modified_Time).toBe('2024-05-02T23:59:59+05:30');
    const polled = await poll(cursor);
    expect(ids(polled.events)).toEqual([newer.id]);
    expect(polled.cursor).toEqual({ since: newer.Modified_Time, ids: [newer.id] });
  });

  it('pages through Zoho’s pages with its tokens, oldest first, each record once', async () => {
    const { cursor } = await poll(null);
    const added = Array.from({ length: 450 }, (_, index) => seedRecord(setup.zoho.state, 'Leads', { Last_Name: `Lead ${index}` }));
    const polled = await poll(cursor);
    expect(ids(polled.events)).toEqual(added.map((record) => record.id));
    expect(polled.cursor).toEqual({ since: added[449].Modified_Time, ids: [added[449].id] });
    const pages = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads').slice(1);
    expect(pages.map((request) => request.query.has('page_token'))).toEqual([false, true, true]);
    expect((await poll(polled.cursor)).events).toEqual([]);
  });

  it('stops at 500 events a poll and the next poll takes up where it stopped', async () => {
    const { cursor } = await poll(null);
    // 650 new records, the last 300 of them in one second.
    const spread = Array.from({ length: 350 }, (_, index) => seedRecord(setup.zoho.state, 'Leads', { Last_Name: `Spread ${index}` }));
    const second = setup.zoho.state.now;
    const burst = Array.from({ length: 300 }, (_, index) => seedRecord(setup.zoho.state, 'Leads', { Last_Name: `Burst ${index}` }, second));

    const first = await poll(cursor);
    expect(first.events).toHaveLength(500);
    const rest = await poll(first.cursor);
    expect(rest.events).toHaveLength(150);
    expect([...ids(first.events), ...ids(rest.events)].sort()).toEqual([...spread, ...burst].map((record) => record.id).sort());
    expect((await poll(rest.cursor)).events).toEqual([]);
  });

  it('fires every record of a module that was empty at the baseline', async () => {
    const { cursor } = await poll(null);
    expect(cursor).toEqual({ since: null, ids: [] });
    const lead = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'First ever' });
    const polled = await poll(cursor);
    expect(ids(polled.events)).toEqual([lead.id]);
    expect(requestsTo(setup.zoho, 'GET', '/crm/v2/Leads').at(-1)!.headers['if-modified-since']).toBeUndefined();
  });

  it('refuses a cursor it never returned', async () => {
    await expect(poll({ since: 'yesterday', ids: [] })).rejects.toThrow(/cursor is not one it returned/);
  });
});

describe('record_created_or_updated without page tokens', () => {
  const numbered = useZoho({ tokensFrom: Number.POSITIVE_INFINITY });

  it('pages by number when Zoho gives no token', async () => {
    const first = await runTrigger(zohoCrmApp, 'record_created_or_updated', { module: 'Deals' }, { ...numbered.call(), cursor: null });
    const added = Array.from({ length: 250 }, (_, index) => seedRecord(numbered.zoho.state, 'Deals', { Deal_Name: `Deal ${index}` }));
    const run = await runTrigger(zohoCrmApp, 'record_created_or_updated', { module: 'Deals' }, { ...numbered.call(), cursor: first.cursor });
    expect((run.outputs as Json[]).map((event) => event.id)).toEqual(added.map((record) => record.id));
    expect(requestsTo(numbered.zoho, 'GET', '/crm/v2/Deals').slice(1).map((request) => request.query.get('page'))).toEqual(['1', '2']);
  });
});
