import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgress, type Egress, type HostResolver } from '../../../../../core/egress';
import { captureLogger } from '../../../../../core/testing/capture-logger';
import type { TableImport } from '../../../../../plugins/tables/entities';
import type { ImportItem } from '../../../../../plugins/tables/imports/import-reader';
import { readWebsite } from '../../../../../plugins/tables/imports/website/read-website';

/** What a path of a test site answers: an HTML body (200, text/html), a whole response, or nothing ever (`hang`). */
export type Route = string | { status?: number; type?: string; body?: string | Buffer; headers?: Record<string, string>; hang?: boolean; delayMs?: number };

export interface TestSite {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every request received, as `<host header> <path>`, in order. */
  requests: string[];
  /** Paths requested, in order (without the host). */
  paths(): string[];
  close(): Promise<void>;
}

/**
 * A website on loopback. Routes are keyed by path, or by `<host header> <path>` for an
 * answer to one host name only; they are looked up per request, so a test may add
 * routes that name the port once the site listens. A path without a route answers 404
 * (robots.txt included, unless given).
 */
export async function startSite(routes: Record<string, Route>): Promise<TestSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.headers.host} ${req.url}`);
    const route = routes[`${req.headers.host} ${req.url}`] ?? routes[req.url ?? ''];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    const answer = typeof route === 'string' ? { body: route } : route;
    if (answer.hang) return;
    const headers: Record<string, string> = { ...answer.headers };
    if (answer.type !== '') headers['content-type'] = answer.type ?? 'text/html; charset=utf-8';
    const respond = () => void res.writeHead(answer.status ?? 200, headers).end(answer.body ?? '');
    if (answer.delayMs) setTimeout(respond, answer.delayMs);
    else respond();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    paths: () => requests.map((line) => line.slice(line.indexOf(' ') + 1)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A page whose body holds the given HTML and links to each of `links`. */
export function page(title: string, body: string, links: string[] = []): string {
  const anchors = links.map((href) => `<a href="${href}">${href}</a>`).join(' ');
  return `<!doctype html><html><head><title>${title}</title></head><body><main><p>${body}</p><p>${anchors}</p></main></body></html>`;
}

/** Egress as the kernel builds it, with loopback allowed (unless `allowCidrs` says otherwise) and fast retries; `hosts` plays DNS for test host names. */
export function testEgress(hosts: Record<string, string> = {}, allowCidrs = ['127.0.0.0/8']): Egress {
  const resolve: HostResolver = async (hostname) => {
    const address = hosts[hostname] ?? (hostname === '127.0.0.1' ? hostname : undefined);
    if (address === undefined) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  };
  return createEgress(
    { egressAllowCidrs: allowCidrs, egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 1024 * 1024, egressMaxRetries: 1 },
    captureLogger().logger,
    { retryBackoffMs: 5, resolve },
  );
}

export interface CrawlResult {
  items: ImportItem[];
  rows: Array<Extract<ImportItem, { kind: 'row' }>>;
  badRows: Array<Extract<ImportItem, { kind: 'bad-row' }>>;
  /** The url cell of each row, in order, once per page. */
  pageUrls: string[];
  progress: Array<[number, number | null]>;
}

export interface CrawlOptions {
  maxPages?: number;
  maxDepth?: number;
  pageTimeoutMs?: number;
}

/** Runs the reader to its end, as the import job would, and collects what it yields. */
export async function crawl(egress: Egress, url: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const progress: Array<[number, number | null]> = [];
  const items: ImportItem[] = [];
  const reader = readWebsite({
    import: { options: { url } } as unknown as TableImport,
    content: () => {
      throw new Error('a website import has no uploaded content');
    },
    contentSize: 0,
    egress,
    crawl: { maxPages: options.maxPages ?? 50, maxDepth: options.maxDepth ?? 2, pageTimeoutMs: options.pageTimeoutMs ?? 5000 },
    progress: (done, total) => progress.push([done, total]),
  });
  for await (const item of reader) items.push(item);
  const rows = items.filter((item) => item.kind === 'row');
  const pageUrls = [...new Set(rows.map((row) => row.cells[0] as string))];
  return { items, rows, badRows: items.filter((item) => item.kind === 'bad-row'), pageUrls, progress };
}
