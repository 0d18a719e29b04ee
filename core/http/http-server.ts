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
    // node answers a request without Host itself, with an empty body: the app answers it instead, in its envelope.
    this.server = http.createServer({ ...expressMessageClasses(app), requireHostHeader: false }, app);
    this.server.keepAliveTimeout = 65_000;
    this.server.on('request', (_req, res) => {
      this.inFlight++;
      res.on('close', this.responseClosed);
    });
  }

  private readonly responseClosed = () => {
    this.inFlight--;
    if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
  };

  isDraining(): boolean {
    return this.draining;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return listenOn(this.server, port, host);
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

/**
 * Request and response classes whose prototypes are the app's own `request` and
 * `response`. express gives every request and response those prototypes with
 * `Object.setPrototypeOf`; on objects made by node:http that changed their maps each
 * time (measured under callgrind: about 30,000 instructions a request, 5% of a small
 * read). When the objects are made with those prototypes already, the same call finds
 * nothing to change. They are made by node's own constructors with `Reflect.construct`:
 * the object then gets a copy of node's map, sized for node's properties (a function of
 * our own as the constructor would give it a map with too little room, and every
 * request object would fall back to slow dictionary properties).
 */
function expressMessageClasses(app: Express): { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse } {
  function ExpressRequest(...args: unknown[]): object {
    return Reflect.construct(http.IncomingMessage, args, ExpressRequest);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(...args: unknown[]): object {
    return Reflect.construct(http.ServerResponse, args, ExpressResponse);
  }
  ExpressResponse.prototype = app.response;
  return { IncomingMessage: ExpressRequest as never, ServerResponse: ExpressResponse as never };
}

/** Listens, rejecting on a failure to bind (a port in use) rather than emitting it. */
export function listenOn(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
