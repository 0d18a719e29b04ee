import fs from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';

/** The part of s3rver (a devDependency without types) these tests use. */
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer: Server;
}
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface LocalS3 {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request the server received, oldest first. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * An S3-compatible server on loopback (s3rver, objects in a temporary folder) with the
 * given buckets. It checks that requests are SigV4-shaped (Authorization header or
 * X-Amz-* query, x-amz-content-sha256) and enforces a presigned URL's expiry, but does
 * not verify signatures; `requests` lets a test see what the client sent.
 */
export async function startLocalS3(buckets: string[]): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name, configs: [] })) });
  const { port } = await server.run();
  const requests: RecordedRequest[] = [];
  server.httpServer.on('request', (request) => requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers }));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      // Clients keep connections alive; close() alone would wait for them.
      server.httpServer.closeAllConnections();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
