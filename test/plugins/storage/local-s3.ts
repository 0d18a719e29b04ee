import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';

/** The part of s3rver (a devDependency without types) these tests use. */
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer: Server;
  /** Its filesystem store: each object a file, its LastModified that file's mtime. */
  store: { getResourcePath(bucket: string, key: string, resource: string): string };
}
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

/**
 * s3rver 3.7 seals ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (the Node
 * this runs on) refuses without its legacy provider, so a listing longer than one page
 * fails with 500 InternalError. The token is opaque to clients: DES, only ever asked for
 * by s3rver, becomes a cipher that leaves the bytes as they are (s3rver still checks the
 * region and bucket it reads back). Every other algorithm goes to OpenSSL as before.
 */
const openssl = { cipher: crypto.createCipheriv, decipher: crypto.createDecipheriv };
const plain = () => ({ update: (data: string | Buffer, encoding?: BufferEncoding) => (typeof data === 'string' ? Buffer.from(data, encoding) : data), final: () => Buffer.alloc(0) });
(crypto as { createCipheriv: unknown }).createCipheriv = (algorithm: string, ...rest: unknown[]) =>
  algorithm === 'des' ? plain() : (openssl.cipher as (...args: unknown[]) => unknown)(algorithm, ...rest);
(crypto as { createDecipheriv: unknown }).createDecipheriv = (algorithm: string, ...rest: unknown[]) =>
  algorithm === 'des' ? plain() : (openssl.decipher as (...args: unknown[]) => unknown)(algorithm, ...rest);

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
  /**
   * Sets the LastModified of an object (its full key, any key prefix included) to `at`:
   * s3rver answers the mtime of the file it keeps the object in (to the second, as S3 does).
   */
  backdate(bucket: string, objectKey: string, at: Date): void;
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
    backdate: (bucket, objectKey, at) => fs.utimesSync(server.store.getResourcePath(bucket, objectKey, 'object'), at, at),
    close: async () => {
      // Clients keep connections alive; close() alone would wait for them.
      server.httpServer.closeAllConnections();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
