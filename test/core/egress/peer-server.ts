import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EgressConfig } from '../../../core/egress';
import type { Logger } from '../../../core/logging/logger';
import { captureLogger } from '../../../core/testing/capture-logger';
export { captureLogger };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Peer {
  /** `http://<host>:<port>` */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far: 0 proves nothing reached the peer. */
  connections: number;
  close(): Promise<void>;
}

export type PeerHandler = (request: ReceivedRequest, res: http.ServerResponse, req: http.IncomingMessage) => void;

/** A local HTTP server a test talks to; the handler sees each request with its whole body read. */
export async function startPeer(handler: PeerHandler, host = '127.0.0.1', port = 0): Promise<Peer> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      handler(received, res, req);
    });
  });
  const peer: Peer = {
    url: '',
    port: 0,
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => peer.connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  peer.port = (server.address() as AddressInfo).port;
  peer.url = `http://${host.includes(':') ? `[${host}]` : host}:${peer.port}`;
  return peer;
}

/** The egress settings of a test, loopback allowed unless the test says otherwise. */
export function egressConfig(overrides: Partial<EgressConfig> = {}): EgressConfig {
  return {
    egressAllowCidrs: ['127.0.0.0/8'],
    egressConnectTimeoutMs: 2000,
    egressTimeoutMs: 5000,
    egressMaxResponseBytes: 1024 * 1024,
    egressMaxRetries: 2,
    ...overrides,
  };
}
