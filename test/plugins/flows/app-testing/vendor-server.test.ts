import { startVendorServer, useVendorServer } from '../../../../plugins/flows/app-testing/vendor-server';

interface Crm {
  leads: Array<{ id: number; email: string }>;
}

// A CRM's API as its documentation says: leads are created, then read by id.
const crm = useVendorServer<Crm>(
  {
    'POST /v1/leads': (request, state) => {
      const lead = { id: state.leads.length + 1, email: request.json<{ email: string }>().email };
      state.leads.push(lead);
      return { status: 201, body: lead };
    },
    'GET /v1/leads/:id': (request, state) => {
      const lead = state.leads.find((candidate) => candidate.id === Number(request.params.id));
      return lead ? { body: lead } : { status: 404, body: { error: 'lead not found' } };
    },
    'GET /v1/export': () => ({ headers: { 'content-type': 'text/csv' }, body: 'id,email\n' }),
    'GET /v1/broken': () => {
      throw new Error('database on fire');
    },
  },
  { state: { leads: [] } },
);

describe('useVendorServer', () => {
  it('serves its routes on 127.0.0.1 with path parameters, keeping state between requests', async () => {
    expect(crm.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await fetch(`${crm.url}/v1/leads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com' }) });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(await created.json()).toEqual({ id: 1, email: 'ada@example.com' });
    expect(crm.state.leads).toEqual([{ id: 1, email: 'ada@example.com' }]);

    const read = await fetch(`${crm.url}/v1/leads/1?fields=email`);
    expect(await read.json()).toEqual({ id: 1, email: 'ada@example.com' });
    const last = crm.requests[crm.requests.length - 1];
    expect(last).toMatchObject({ method: 'GET', path: '/v1/leads/1', params: { id: '1' } });
    expect(last.query.get('fields')).toBe('email');
    expect((await fetch(`${crm.url}/v1/leads/9`)).status).toBe(404);
  });

  it('sends a text body as it is, answers 404 for an unrouted request and 500 with the message when a handler throws', async () => {
    const csv = await fetch(`${crm.url}/v1/export`);
    expect([csv.headers.get('content-type'), await csv.text()]).toEqual(['text/csv', 'id,email\n']);
    const unrouted = await fetch(`${crm.url}/v1/leads`, { method: 'DELETE' });
    expect([unrouted.status, await unrouted.json()]).toEqual([404, { error: 'no route for DELETE /v1/leads' }]);
    const broken = await fetch(`${crm.url}/v1/broken`);
    expect([broken.status, await broken.json()]).toEqual([500, { error: 'database on fire' }]);
    expect(crm.requests.map((request) => `${request.method} ${request.path}`)).toContain('DELETE /v1/leads');
  });
});

describe('startVendorServer', () => {
  it('stops answering once closed, and refuses a route key that is not "METHOD /path"', async () => {
    const server = await startVendorServer({ 'GET /ping': () => ({ body: { pong: true } }) });
    expect(await (await fetch(`${server.url}/ping`)).json()).toEqual({ pong: true });
    await server.close();
    await expect(fetch(`${server.url}/ping`)).rejects.toThrow();
    await expect(startVendorServer({ '/ping': () => ({}) })).rejects.toThrow('vendor server route "/ping" must be "METHOD /path"');
  });
});
