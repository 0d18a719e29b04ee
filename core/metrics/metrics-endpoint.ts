import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../http/http-errors';
import { listenOn } from '../http/http-server';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';

/** Compared as SHA-256 digests: same length whatever was sent, so the time taken says nothing of the token. */
function tokenMatches(sent: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

/** `GET /metrics` on the main port, for a bearer of METRICS_TOKEN alone (401 otherwise). */
export function metricsRoute(metrics: Metrics, token: string): RequestHandler {
  return async (req, res, next) => {
    try {
      const header = req.headers.authorization ?? '';
      const sent = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      if (!sent || !tokenMatches(sent, token)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        throw new UnauthorizedError('A bearer token (METRICS_TOKEN) is required');
      }
      const text = await metrics.text();
      res.status(200).setHeader('Content-Type', metrics.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(text);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * The separate metrics server of METRICS_PORT: its own small node server, bound to
 * METRICS_HOST (loopback by default), answering GET /metrics without a token and 404 to
 * anything else. It runs in every role, so a worker, which serves no HTTP, is scraped too.
 */
export class MetricsServer {
  private readonly server: http.Server;

  constructor(private readonly metrics: Metrics) {
    this.server = http.createServer((req, res) => void this.answer(req, res));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: only GET /metrics is served here\n');
      return;
    }
    try {
      const text = await this.metrics.text();
      res.writeHead(200, { 'Content-Type': this.metrics.contentType, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`collecting metrics failed: ${(error as Error).message}\n`);
    }
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return listenOn(this.server, port, host);
  }

  /** Stops at once: a scrape cut short is simply missed. */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}
