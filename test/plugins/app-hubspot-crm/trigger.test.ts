import { hubspotCrmApp } from '../../../plugins/app-hubspot-crm';
import { runTrigger } from '../../../plugins/flows/testing-kit';
import { useHubSpot } from './hubspot-setup';

const { world, options, received } = useHubSpot();

interface Cursor {
  since: number;
  ids: string[];
}

const poll = async (input: Record<string, unknown>, cursor: Cursor | null, values: Record<string, unknown> = {}) => {
  const run = await runTrigger(hubspotCrmApp, 'record_created_or_updated', input, { ...options(undefined, values), cursor });
  return { events: run.outputs as Array<Record<string, unknown>>, cursor: run.cursor as Cursor };
};

/** A minute ago: records the tests make are stamped after it and before now. */
const past = () => Date.now() - 60_000;

describe('record_created_or_updated', () => {
  it('takes a baseline first: what existed before starts nothing, what changes afterwards does', async () => {
    world.hubspot.seed('contacts', { email: 'old@example.com' }, past());
    const baseline = await poll({ module: 'contacts' }, null);
    expect(baseline.events).toEqual([]);
    expect(baseline.cursor).toEqual({ since: expect.any(Number), ids: [] });
    expect(Math.abs(baseline.cursor.since - Date.now())).toBeLessThan(5000);
    expect(received()).toHaveLength(0);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const fresh = world.hubspot.seed('contacts', { email: 'new@example.com' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = await poll({ module: 'contacts' }, baseline.cursor);
    expect(next.events).toEqual([expect.objectContaining({ id: fresh.id, email: 'new@example.com' })]);
  });

  it('returns a new or changed record once, sorted by the last-change property, and nothing the next time', async () => {
    const start = past();
    const first = world.hubspot.seed('deals', { dealname: 'First' }, start + 1000);
    const second = world.hubspot.seed('deals', { dealname: 'Second' }, start + 2000);
    const one = await poll({ module: 'deals', properties: ['dealname'] }, { since: start, ids: [] });
    expect(one.events.map((event) => event.dealname)).toEqual(['First', 'Second']);
    expect(one.events[0]).toEqual({ dealname: 'First', hs_lastmodifieddate: new Date(start + 1000).toISOString(), id: first.id, createdAt: first.createdAt, updatedAt: first.updatedAt, archived: false });
    expect(one.cursor).toEqual({ since: start + 2000, ids: [second.id] });

    const [search] = received('POST /crm/v3/objects/deals/search').map((request) => request.json<{ filterGroups: Array<{ filters: Array<Record<string, string>> }> } & Record<string, unknown>>());
    expect(search.filterGroups[0].filters[0]).toEqual({ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(start) });
    expect(search.filterGroups[0].filters[1]).toMatchObject({ propertyName: 'hs_lastmodifieddate', operator: 'LTE' });
    expect(search).toMatchObject({ sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }], properties: ['dealname', 'hs_lastmodifieddate'], limit: 200 });

    expect((await poll({ module: 'deals', properties: ['dealname'] }, one.cursor)).events).toEqual([]);

    world.hubspot.touch('deals', first.id, { dealname: 'First, renamed' }, start + 3000);
    const two = await poll({ module: 'deals', properties: ['dealname'] }, one.cursor);
    expect(two.events).toEqual([expect.objectContaining({ id: first.id, dealname: 'First, renamed' })]);
    expect(two.cursor).toEqual({ since: start + 3000, ids: [first.id] });
  });

  it('uses lastmodifieddate on contacts', async () => {
    world.hubspot.seed('contacts', { email: 'a@example.com' }, past() + 1000);
    await poll({ module: 'contacts' }, { since: past(), ids: [] });
    const [search] = received('POST /crm/v3/objects/contacts/search').map((request) => request.json<Record<string, unknown>>());
    expect(search).toMatchObject({ sorts: [{ propertyName: 'lastmodifieddate', direction: 'ASCENDING' }] });
  });

  it('returns a record sharing the cursor’s time once, and never skips one', async () => {
    const at = past() + 5000;
    const a = world.hubspot.seed('tickets', { subject: 'A' }, at);
    const one = await poll({ module: 'tickets' }, { since: past(), ids: [] });
    expect(one.events.map((event) => event.id)).toEqual([a.id]);
    expect(one.cursor).toEqual({ since: at, ids: [a.id] });

    // Another ticket changed in the same millisecond, seen only now (HubSpot's search lags).
    const b = world.hubspot.seed('tickets', { subject: 'B' }, at);
    const two = await poll({ module: 'tickets' }, one.cursor);
    expect(two.events.map((event) => event.id)).toEqual([b.id]);
    expect(two.cursor).toEqual({ since: at, ids: [a.id, b.id] });
    expect((await poll({ module: 'tickets' }, two.cursor)).events).toEqual([]);
  });

  it('pages through HubSpot’s results and stops at 500 events a poll, the next poll taking up after them', async () => {
    const start = past();
    for (let index = 0; index < 620; index++) world.hubspot.seed('companies', { name: `Company ${index}` }, start + 1 + Math.floor(index / 3));
    const one = await poll({ module: 'companies' }, { since: start, ids: [] });
    expect(one.events).toHaveLength(500);
    const afters = received('POST /crm/v3/objects/companies/search').map((request) => request.json<{ after?: string }>().after);
    expect(afters).toEqual([undefined, '200', '400']);
    const two = await poll({ module: 'companies' }, one.cursor);
    expect(two.events).toHaveLength(120);
    const names = [...one.events, ...two.events].map((event) => event.name);
    expect(new Set(names).size).toBe(620);
  });

  it('leaves changes younger than the settle time for a later poll', async () => {
    const start = past();
    world.hubspot.seed('deals', { dealname: 'Settled' }, start + 1000);
    world.hubspot.seed('deals', { dealname: 'Too fresh' }, Date.now() - 2000);
    const one = await poll({ module: 'deals', properties: ['dealname'] }, { since: start, ids: [] }, { hubspotPollSettleSeconds: 30 });
    expect(one.events.map((event) => event.dealname)).toEqual(['Settled']);
    const two = await poll({ module: 'deals', properties: ['dealname'] }, one.cursor, { hubspotPollSettleSeconds: 0 });
    expect(two.events.map((event) => event.dealname)).toEqual(['Too fresh']);
  });

  it('refuses a cursor it did not write', async () => {
    await expect(poll({ module: 'deals' }, { since: 'yesterday' } as unknown as Cursor)).rejects.toThrow(/cursor is not one it wrote/);
  });
});
