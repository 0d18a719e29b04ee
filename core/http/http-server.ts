import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * The listening server, with a drain: stop accepting, let in-flight requests
 * finish (closing idle keep-alive sockets), then cut what is left at the deadline.
 */
export class HttpServer {
  private readonly server: http.Server;
  private inFlight = 0;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(app: Express) {
    this.server = http.createServer(app);
    this.server.keepAliveTimeout = 65_000;
    this.server.on('request', (_req, res) => {
      this.inFlight++;
      res.once('close', () => {
        this.inFlight--;
        if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
      });
    });
  }

  isDraining(): boolean {
    return this.draining;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  async drain(timeoutMs: number): Promise<void> {
    if (!this.server.listening) return;
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const idle = this.inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([idle, deadline]);
    clearTimeout(timer);
    this.server.closeAllConnections();
    await closed;
  }
}
