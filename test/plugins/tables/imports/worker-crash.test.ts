import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { disabledPluginsExcept, startTestKernel, startWorkerProcess, waitForExit, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, finished } from './import-test-kit';

/**
 * The job's promise: every row commits with the import's completion, so a worker killed
 * mid-import leaves nothing behind and the redelivered job starts over. Real `switchboard
 * worker` processes run the job; this process only serves. A crawled site makes the
 * timing deterministic: its first page has more chunks than one insert batch (2,000), so
 * by the time the crawler asks for the second page, which the site holds back, the job
 * has sent rows to the database; the worker is killed right then.
 */
const PARAGRAPHS = 2100;
let kit: TestKernel;
let site: { url: string; laterRequests: number; release(): void; close(): Promise<void> };

async function startSite() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const paragraph = (n: number) => `<p>Paragraph ${n}: ${'the crawler keeps reading this long paragraph about shipping and returns. '.repeat(12)}</p>`;
  const first = `<!doctype html><html><head><title>Big</title></head><body><main>${Array.from({ length: PARAGRAPHS }, (_, n) => paragraph(n)).join('')}<a href="/later">later</a></main></body></html>`;
  const state = {
    url: '',
    laterRequests: 0,
    release,
    close: async () => {},
  };
  const server = http.createServer(async (req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(first);
    if (req.url === '/later') {
      state.laterRequests++;
      await gate;
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Later</title></head><body><main><p>The end.</p></main></body></html>');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}


function startWorker(log: string[]): ChildProcess {
  const child = startWorkerProcess(kit, { DISABLED_PLUGINS: disabledPluginsExcept(['agents', 'tables']), EGRESS_ALLOW_CIDRS: '127.0.0.0/8', BUS_POLL_INTERVAL_MS: '200' });
  child.stderr!.on('data', (chunk) => log.push(String(chunk)));
  return child;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const recordCount = async (table: string): Promise<number> =>
  (await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from data_table_records where table_uuid = ?', [table]))[0].n;

beforeAll(async () => {
  site = await startSite();
  kit = await startTestKernel({ plugins: [AGENTS, TABLES], role: 'serve', config: process.env.AMQP_URL ? { amqpUrl: process.env.AMQP_URL } : {} });
});
afterAll(async () => {
  site?.release();
  await kit?.stop();
  await site?.close();
});

it('a worker killed mid-import leaves no rows behind, and the next worker imports everything once', async () => {
  const res = await kit.api.post('/api/v1/data/import/website').send({ url: site.url, max_pages: 2 }).expect(202);
  const { uuid, table_uuid: table } = res.body.data;
  const log: string[] = [];
  let crashing: ChildProcess | undefined;
  let healthy: ChildProcess | undefined;
  try {
    crashing = startWorker(log);
    await waitFor(() => site.laterRequests > 0, "the crawler to ask for the second page", 20_000);
    crashing.kill('SIGKILL');
    await waitForExit(crashing);
    expect((await kit.api.get(`/api/v1/data/imports/${uuid}`).expect(200)).body.data).toMatchObject({ status: 'running', rows_imported: 0 });
    expect(await recordCount(table)).toBe(0);

    site.release();
    healthy = startWorker(log);
    const done = await finished(kit.api, uuid, 60_000);
    expect(done).toMatchObject({ status: 'completed', error_count: 0 });
    expect(done.rows_imported).toBeGreaterThan(2000);
    expect(await recordCount(table)).toBe(done.rows_imported);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nworker log:\n${log.join('')}`);
  } finally {
    for (const child of [crashing, healthy]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all([crashing, healthy].filter((child): child is ChildProcess => !!child).map(waitForExit));
  }
}, 120_000);
