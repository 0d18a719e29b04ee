import type { VendorHandler, VendorRoutes } from 'switchboard/flows/testing';
import type { AcmeLead, AcmeLeadsList } from '../client';

/** The one API key the double accepts. */
export const API_KEY = 'test-api-key';

/** Lists per page of `GET /v1/lists`, small so that tests see a second page. */
const LISTS_PAGE = 2;

export interface AcmeLeadsState {
  lists: AcmeLeadsList[];
  leads: AcmeLead[];
  /** The lead each `Idempotency-Key` created, answered again to a repeated request. */
  created: Map<string, AcmeLead>;
}

export function acmeLeadsState(): AcmeLeadsState {
  return {
    lists: [
      { id: 'lst_1', name: 'Newsletter' },
      { id: 'lst_2', name: 'Trade fair' },
      { id: 'lst_3', name: 'Newsletter (archive)' },
      { id: 'lst_4', name: 'Webinar' },
    ],
    leads: [
      { id: 1, list_id: 'lst_1', email: 'ada@example.com', name: 'Ada Lovelace', tags: [], created_at: '2025-01-06T09:00:00Z' },
      { id: 2, list_id: 'lst_1', email: 'alan@example.com', name: 'Alan Turing', tags: ['newsletter'], created_at: '2025-01-06T09:10:00Z' },
    ],
    created: new Map(),
  };
}

/** Every route answers 401, as Acme Leads does, without the API key. */
function authorized(routes: VendorRoutes<AcmeLeadsState>): VendorRoutes<AcmeLeadsState> {
  const guard =
    (handler: VendorHandler<AcmeLeadsState>): VendorHandler<AcmeLeadsState> =>
    (request, state) =>
      request.headers.authorization === `Bearer ${API_KEY}` ? handler(request, state) : { status: 401, body: { error: 'invalid API key' } };
  return Object.fromEntries(Object.entries(routes).map(([route, handler]) => [route, guard(handler)]));
}

/** Acme Leads as its API documentation describes it, played on 127.0.0.1 (startVendorServer). */
export const acmeLeadsRoutes = authorized({
  'GET /v1/me': () => ({ body: { account: 'Test account' } }),
  'GET /v1/lists': (request, state) => {
    const search = (request.query.get('q') ?? '').toLowerCase();
    const matching = state.lists.filter((list) => list.name.toLowerCase().includes(search));
    const start = Number(request.query.get('cursor') ?? 0);
    const end = start + LISTS_PAGE;
    return { body: { items: matching.slice(start, end), next_cursor: end < matching.length ? String(end) : null } };
  },
  'GET /v1/lists/:list/leads': (request, state) => {
    const leads = state.leads.filter((lead) => lead.list_id === request.params.list);
    const limit = Number(request.query.get('limit') ?? 100);
    if (request.query.get('order') === 'newest') return { body: { items: [...leads].reverse().slice(0, limit) } };
    const after = Number(request.query.get('after') ?? 0);
    return { body: { items: leads.filter((lead) => lead.id > after).slice(0, limit) } };
  },
  'POST /v1/lists/:list/leads': (request, state) => {
    const key = request.headers['idempotency-key'];
    const again = typeof key === 'string' ? state.created.get(key) : undefined;
    if (again) return { status: 201, body: again };
    if (!state.lists.some((list) => list.id === request.params.list)) return { status: 404, body: { error: 'no such list' } };
    const { email, name, tags } = request.json<{ email: string; name?: string; tags?: string[] }>();
    const lead = { id: state.leads.length + 1, list_id: request.params.list, email, name: name ?? '', tags: tags ?? [], created_at: new Date().toISOString() };
    state.leads.push(lead);
    if (typeof key === 'string') state.created.set(key, lead);
    return { status: 201, body: lead };
  },
});
