import { startTestKernel, transactionsOpenLongerThan, type TestKernel } from '../../../../../core/testing';
import { AGENTS, TABLES, columnsOf, finished, rowsOf } from '../import-test-kit';
import { page, startSite, type Route, type TestSite } from './website-test-kit';

// The test kernel's egress allows loopback (egressAllowCidrs 127.0.0.0/8), where the test site listens.
let kit: TestKernel;
let web: TestSite;
const routes: Record<string, Route> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' },
  '/': page('Docs home', 'Welcome to the handbook.', ['/guide', '/private/notes', '/broken']),
  '/guide': page('Guide', 'Install the widget, then restart.', ['/']),
  '/private/notes': page('Notes', 'Internal notes.'),
  '/broken': { status: 500, body: 'boom' },
  '/slow': { body: page('Slow', 'A page that takes its time.'), delayMs: 1500 },
};

beforeAll(async () => {
  web = await startSite(routes);
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(async () => {
  await kit?.stop();
  await web?.close();
});

describe('POST /api/v1/data/import/website', () => {
  it('crawls the site into a new table of page chunks, reporting the page that failed', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: `${web.url}/`, name: 'Handbook' }).expect(202);
    expect(res.body.data).toMatchObject({ source: 'website', format: 'website', status: 'queued', source_name: `${web.url}/` });

    const done = await finished(kit.api, res.body.data.uuid);

    expect(done).toMatchObject({
      status: 'completed',
      rows_imported: 2,
      error_count: 1,
      errors: [{ row: 3, message: `${web.url}/broken: HTTP 500 Internal Server Error` }],
      progress: { done: 3, total: 3, unit: 'pages' },
    });
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['url', 'url'],
      ['title', 'text'],
      ['content', 'text'],
      ['chunk', 'number'],
    ]);
    const rows = await rowsOf(kit.api, done.table_uuid);
    expect(rows).toEqual([
      { url: `${web.url}/`, title: 'Docs home', content: expect.stringContaining('Welcome to the handbook.'), chunk: 1 },
      { url: `${web.url}/guide`, title: 'Guide', content: expect.stringContaining('Install the widget, then restart.'), chunk: 1 },
    ]);
    expect(web.paths()).not.toContain('/private/notes');
  });

  it('crawls before the job’s transaction opens (the consumer’s prepare): none waits on a slow site', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: `${web.url}/slow`, name: 'Slow site' }).expect(202);
    await eventually(() => web.paths().includes('/slow'));
    expect(await transactionsOpenLongerThan(kit, 500, { samples: 5 })).toEqual([]);
    expect(await finished(kit.api, res.body.data.uuid)).toMatchObject({ status: 'completed', rows_imported: 1, progress: { done: 1, total: 1, unit: 'pages' } });
  });

  it('fails the import with a message when the start page cannot be read', async () => {
    const res = await kit.api.post('/api/v1/data/import/website').send({ url: `${web.url}/missing` }).expect(202);

    const done = await finished(kit.api, res.body.data.uuid);

    expect(done).toMatchObject({ status: 'failed', rows_imported: 0, message: `Cannot crawl ${web.url}/missing: HTTP 404 Not Found` });
  });
});

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
