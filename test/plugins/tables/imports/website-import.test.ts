import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { page } from './website/website-test-kit';
import { AGENTS, TABLES, columnsOf, finished, rowsOf } from './import-test-kit';

let kit: TestKernel;
let site: { url: string; host: string; release(): void; close(): Promise<void> };

/** A two-page site whose second page answers only once the test releases it. */
async function startGatedSite() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer(async (req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Home', 'Opening hours are nine to five.', ['/later']));
    if (req.url === '/later') {
      await gate;
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Later', 'Parking is free on Sundays.'));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    host: `127.0.0.1:${port}`,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
  site = await startGatedSite();
});
afterAll(async () => {
  site?.release();
  await site?.close();
  await kit?.stop();
});

describe('POST /api/v1/data/import/website', () => {
  it('crawls the site into a table named after its host, with progress in pages visible while it runs', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: site.url, max_pages: 5 }).expect(202);
    expect(res.body.data).toMatchObject({ source: 'website', format: 'website', status: 'queued', source_name: site.url, progress: { done: 0, total: null, unit: 'pages' } });

    // The second page is held back: the import must show itself running, one page done.
    const deadline = Date.now() + 20_000;
    let seen = res.body.data;
    while (!(seen.status === 'running' && seen.progress.done >= 1)) {
      if (Date.now() > deadline) throw new Error(`import never showed progress: ${JSON.stringify(seen)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = (await kit.api.get(`/api/v1/data/imports/${res.body.data.uuid}`).expect(200)).body.data;
    }
    expect(seen).toMatchObject({ rows_imported: 0, finished_at: null });
    expect(seen.started_at).not.toBeNull();
    site.release();

    const done = await finished(kit.api, res.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', rows_imported: 2, progress: { done: 2, unit: 'pages' } });
    const table = await kit.api.get(`/api/v1/data/${done.table_uuid}`).expect(200);
    expect(table.body.data.name).toBe(site.host);
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['url', 'url'],
      ['title', 'text'],
      ['content', 'text'],
      ['chunk', 'number'],
    ]);
    const rows = await rowsOf(kit.api, done.table_uuid);
    expect(rows.map((row) => [row.title, row.content])).toEqual([
      ['Home', expect.stringContaining('Opening hours are nine to five.')],
      ['Later', expect.stringContaining('Parking is free on Sundays.')],
    ]);
  });

  it('fails an import whose start page cannot be crawled, with the reason', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: `${site.url}missing`, name: 'Nothing' }).expect(202);
    const done = await finished(kit.api, res.body.data.uuid);
    expect(done.status).toBe('failed');
    expect(done.message).toContain('/missing');
    expect(done.rows_imported).toBe(0);
  });

  it('refuses a URL that is not http(s) and limits above the configured ones', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: 'ftp://example.com/', max_pages: 51, max_depth: 3 }).expect(422);
    expect(res.body.errors).toEqual({
      url: ['must be an http(s) URL'],
      max_pages: ['must be at most 50 (the configured limit)'],
      max_depth: ['must be at most 2 (the configured limit)'],
    });
    await kit.api.post('/api/v1/data/import/website').send({ url: site.url, max_pages: 0 }).expect(422);
  });
});
