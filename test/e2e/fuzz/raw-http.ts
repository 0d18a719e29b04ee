import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query as sent on the wire: already encoded (or deliberately mis-encoded). */
  path: string;
  host: string;
  token?: string;
  headers?: Record<string, string>;
  /** Sent as it is: JSON text, a cut-off multipart body, or a 1 MiB string. */
  body?: string | Buffer;
  contentType?: string;
}

export interface RawResponse {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * One request over a kept-alive connection, with full control of the bytes: supertest
 * would re-encode the path and serialize bodies itself, and the fuzzer needs to send
 * what a hostile client sends (a `%zz` path, a body that is not the JSON it claims).
 */
export class RawClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly target: URL;

  constructor(url: string) {
    this.target = new URL(url);
  }

  send(request: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
    const headers: Record<string, string | number> = { host: request.host, ...request.headers };
    if (request.token) headers.authorization = `Bearer ${request.token}`;
    if (request.body !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(request.body);
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        { agent: this.agent, hostname: this.target.hostname, port: this.target.port, method: request.method, path: request.path, headers, timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
