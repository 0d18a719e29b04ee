import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCrmRequest {
  path: string;
  query: Record<string, string>;
  authorization?: string;
}

/**
 * Plays the fixture CRM's API (fixture-apps.ts): `/me` (the connection test: 401 for a key
 * in `revoked`), `/modules` (all at once) and `/records` (searched and paged by the CRM,
 * two a page), bearer-authenticated with `apiKey`, or any key not revoked when `apiKey`
 * is null. `hold` keeps `/me` answers waiting until `release()`.
 */
export function startFakeCrm(apiKey: string | null) {
  const requests: FakeCrmRequest[] = [];
  const state = { failing: false, revoked: new Set<string>(), hold: false };
  const held: Array<() => void> = [];
  const records = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Adele Goldberg'].map((name, i) => ({ id: `r${i + 1}`, name }));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://crm');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization });
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (state.failing) return send(500, { error: 'down' });
    const key = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (state.revoked.has(key) || (apiKey !== null && key !== apiKey)) return send(401, { error: 'bad key' });
    if (url.pathname === '/me') {
      if (state.hold) return void held.push(() => send(200, { user: 'ada' }));
      return send(200, { user: 'ada' });
    }
    if (url.pathname === '/modules') return send(200, [{ id: 'contacts', name: 'Contacts' }, { id: 'deals', name: 'Deals' }]);
    if (url.pathname === '/records') {
      const search = (url.searchParams.get('search') ?? '').toLowerCase();
      const matching = records.filter((record) => record.name.toLowerCase().includes(search));
      // The cursor is the CRM's own ("page-2"), passed through untouched.
      const pageNo = Number((url.searchParams.get('cursor') ?? 'page-1').slice(5));
      const items = matching.slice((pageNo - 1) * 2, pageNo * 2);
      return send(200, { items, next: pageNo * 2 < matching.length ? `page-${pageNo + 1}` : null });
    }
    send(404, {});
  });
  return new Promise<{
    url: string;
    requests: FakeCrmRequest[];
    state: typeof state;
    /** Sends the held `/me` answers. */
    release: () => void;
    close: () => Promise<void>;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        state,
        release: () => held.splice(0).forEach((answer) => answer()),
        close: () => {
          held.splice(0).forEach((answer) => answer());
          return new Promise((done) => server.close(() => done()));
        },
      }),
    ),
  );
}
