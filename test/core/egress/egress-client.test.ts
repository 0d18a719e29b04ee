import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createEgress,
  EgressNetworkError,
  EgressRefusedError,
  EgressResponseTooLargeError,
  EgressTimeoutError,
  EgressTooManyRedirectsError,
  type Egress,
} from '../../../core/egress';
import packageJson from '../../../package.json';
import { captureLogger, egressConfig, startPeer, type Peer } from './peer-server';
import { TEST_CERT, TEST_KEY } from './tls-fixture';

// These tests talk to peers on loopback, so 127.0.0.0/8 is allowed here; ssrf.test.ts proves the default refuses it.
const peers: Peer[] = [];
const clients: Egress[] = [];
const peer = async (...args: Parameters<typeof startPeer>) => {
  const started = await startPeer(...args);
  peers.push(started);
  return started;
};
const egressWith = (overrides: Parameters<typeof egressConfig>[0] = {}, options: Parameters<typeof createEgress>[2] = {}) => {
  const { logger, lines } = captureLogger();
  const egress = createEgress(egressConfig(overrides), logger, { retryBackoffMs: 5, ...options });
  clients.push(egress);
  return { egress, lines };
};
const json = (res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(peers.splice(0).map((started) => started.close()));
});

describe('egress: requests and responses', () => {
  it('GET with a query, answered with JSON', async () => {
    const server = await peer((request, res) => json(res, 200, { path: request.path, userAgent: request.headers['user-agent'] }));
    const { egress } = egressWith();
    const response = await egress.request(`${server.url}/items?x=1`, { query: { q: 'a b', tag: ['t1', 't2'], skip: undefined } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.json()).toEqual({ path: '/items?x=1&q=a+b&tag=t1&tag=t2', userAgent: `Switchboard/${packageJson.version}` });
    expect(response.url).toBe(`${server.url}/items?x=1&q=a+b&tag=t1&tag=t2`);
    expect(response.redirects).toBe(0);
  });

  it('POST an object as JSON, and strings and bytes as they are', async () => {
    const server = await peer((request, res) => json(res, 201, { method: request.method, type: request.headers['content-type'] ?? null, body: request.body }));
    const { egress } = egressWith();
    const sent = await egress.request(`${server.url}/hooks`, { method: 'post', body: { event: 'created', n: 1 } });
    expect(sent.status).toBe(201);
    expect(sent.json()).toEqual({ method: 'POST', type: 'application/json', body: '{"event":"created","n":1}' });
    const text = await egress.request(`${server.url}/raw`, { method: 'PUT', body: 'plain', headers: { 'Content-Type': 'text/plain' } });
    expect(text.json()).toEqual({ method: 'PUT', type: 'text/plain', body: 'plain' });
    const bytes = await egress.request(`${server.url}/raw`, { method: 'POST', body: new TextEncoder().encode('bytes') });
    expect(bytes.json()).toEqual({ method: 'POST', type: null, body: 'bytes' });
    expect(bytes.text()).toContain('"bytes"');
  });

  it('returns error statuses rather than throwing', async () => {
    const server = await peer((_request, res) => json(res, 404, { message: 'nope' }));
    const { egress } = egressWith();
    const response = await egress.request(`${server.url}/missing`);
    expect(response.status).toBe(404);
    expect(response.json()).toEqual({ message: 'nope' });
  });

  it('sends credentials written in the URL as Basic auth', async () => {
    const server = await peer((request, res) => json(res, 200, { authorization: request.headers.authorization }));
    const { egress } = egressWith();
    const response = await egress.request(server.url.replace('http://', 'http://user:p%40ss@'));
    expect(response.json()).toEqual({ authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}` });
    expect(response.url).toBe(`${server.url}/`);
  });

  it('refuses schemes other than http and https before anything is sent', async () => {
    const { egress } = egressWith();
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'ftp://127.0.0.1/', 'data:text/plain,hi']) {
      await expect(egress.request(url)).rejects.toThrow(EgressRefusedError);
    }
    await expect(egress.request('not a url')).rejects.toThrow(EgressRefusedError);
  });

  it('logs method, host, status and duration at debug, never headers, path or body', async () => {
    const server = await peer((_request, res) => json(res, 200, { ok: true }));
    const { egress, lines } = egressWith();
    await egress.request(`${server.url}/secret-path?token=query-secret`, {
      method: 'POST',
      headers: { authorization: 'Bearer header-secret' },
      body: { password: 'body-secret' },
    });
    const line = lines.find((entry) => entry.message === 'egress call');
    expect(line).toMatchObject({ level: 'debug', method: 'POST', host: `127.0.0.1:${server.port}`, status: 200, attempts: 1, redirects: 0 });
    expect(typeof line!.durationMs).toBe('number');
    const logged = JSON.stringify(lines);
    for (const secret of ['header-secret', 'query-secret', 'body-secret', 'secret-path']) expect(logged).not.toContain(secret);
  });
});

describe('egress: streamed bodies (onChunk)', () => {
  it('passes each chunk as it arrives, before the body has ended', async () => {
    let finish: () => void = () => {};
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const { egress } = egressWith();
    const seen: string[] = [];
    const response = await egress.request(`${server.url}/stream`, {
      onChunk: (chunk) => {
        seen.push(chunk.toString('utf8'));
        // The second piece is only sent once the first was received here.
        if (seen.length === 1) finish();
      },
    });
    expect(response.status).toBe(200);
    expect(seen.join('')).toBe('data: one\n\ndata: two\n\n');
    expect(seen[0]).toBe('data: one\n\n');
    expect(response.body).toHaveLength(0);
  });

  it('reads an error status whole, without calling onChunk', async () => {
    const server = await peer((_request, res) => json(res, 429, { error: { message: 'slow down' } }));
    const { egress } = egressWith({ egressMaxRetries: 0 });
    const onChunk = jest.fn();
    const response = await egress.request(`${server.url}/stream`, { onChunk });
    expect(response.status).toBe(429);
    expect(response.json()).toEqual({ error: { message: 'slow down' } });
    expect(onChunk).not.toHaveBeenCalled();
  });

  it('a streamed call goes through the address policy: loopback refused by default, nothing sent', async () => {
    const server = await peer((_request, res) => res.end('data: never\n\n'));
    const { egress } = egressWith({ egressAllowCidrs: [] });
    const onChunk = jest.fn();
    await expect(egress.request(`${server.url}/stream`, { onChunk })).rejects.toBeInstanceOf(EgressRefusedError);
    expect(onChunk).not.toHaveBeenCalled();
    expect(server.requests).toHaveLength(0);
  });

  it('a stream that stalls is cut off by the timeout, after the chunks already passed', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const { egress } = egressWith();
    const seen: string[] = [];
    const error = await egress.request(`${server.url}/stream`, { timeoutMs: 300, onChunk: (chunk) => seen.push(chunk.toString('utf8')) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressTimeoutError);
    expect(seen).toEqual(['data: first\n\n']);
  });

  it('a stream that goes quiet fails after idleTimeoutMs, long before the total timeout', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: a\n\n');
      // Keeps sending within the idle limit for a while, then stops.
      let sent = 0;
      const tick = setInterval(() => {
        if (++sent > 3) return clearInterval(tick);
        res.write('data: b\n\n');
      }, 100);
      res.on('close', () => clearInterval(tick));
    });
    const { egress } = egressWith();
    const seen: string[] = [];
    const started = Date.now();
    const error = await egress
      .request(`${server.url}/stream`, { timeoutMs: 10_000, idleTimeoutMs: 300, onChunk: (chunk) => seen.push(chunk.toString('utf8')) })
      .catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(EgressTimeoutError);
    expect(error).toMatchObject({ phase: 'idle', timeoutMs: 300 });
    expect(seen.join('')).toBe('data: a\n\n' + 'data: b\n\n'.repeat(3));
    // 3 chunks at 100 ms did not trip it; the silence after them did.
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(3000);
  });

  it('what onChunk throws ends the call and is thrown as it is', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: x\n\n');
    });
    const { egress } = egressWith();
    const mine = new Error('bad chunk');
    await expect(egress.request(`${server.url}/stream`, { timeoutMs: 5000, onChunk: () => { throw mine; } })).rejects.toBe(mine);
  });
});

describe('egress: timeouts', () => {
  it('a server that never answers fails with EgressTimeoutError within the limit', async () => {
    const server = await peer(() => {});
    const { egress } = egressWith();
    const started = Date.now();
    const error = await egress.request(`${server.url}/slow`, { timeoutMs: 300 }).catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(EgressTimeoutError);
    expect(error).toMatchObject({ phase: 'total', timeoutMs: 300 });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    expect(server.requests).toHaveLength(1);
  });

  it('a body that stalls halfway is cut off by the same deadline', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const { egress } = egressWith();
    const started = Date.now();
    await expect(egress.request(server.url, { timeoutMs: 300 })).rejects.toMatchObject({ name: 'EgressTimeoutError', phase: 'total' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a host that does not resolve and connect in time fails with a connect timeout', async () => {
    const { egress } = egressWith({}, { resolve: () => new Promise(() => {}) });
    const started = Date.now();
    const error = await egress.request('http://hanging.example:8080/', { connectTimeoutMs: 200, retries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressTimeoutError);
    expect(error).toMatchObject({ phase: 'connect', timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("the caller's signal cancels the call with the caller's reason", async () => {
    const server = await peer(() => {});
    const { egress } = egressWith();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(egress.request(server.url, { signal: controller.signal })).rejects.toThrow('shutting down');
  });
});

describe('egress: response size cap', () => {
  it('stops reading an endless body at the cap, and the connection is closed', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.on('close', closed);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const { egress } = egressWith({ egressMaxResponseBytes: 256 * 1024 });
    const started = Date.now();
    const error = await egress.request(`${server.url}/big`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressResponseTooLargeError);
    expect(error).toMatchObject({ maxBytes: 256 * 1024 });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(Promise.race([serverSawClose.then(() => 'closed'), sleep(2000, undefined, { ref: false }).then(() => 'still open')])).resolves.toBe('closed');
  });

  it('refuses a declared Content-Length over the cap without waiting for the body', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.write('only a little');
    });
    const { egress } = egressWith();
    const started = Date.now();
    await expect(egress.request(server.url, { maxResponseBytes: 1000 })).rejects.toThrow(EgressResponseTooLargeError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a body exactly at the cap is read whole', async () => {
    const server = await peer((_request, res) => res.end(Buffer.alloc(1000, 'y')));
    const { egress } = egressWith();
    const response = await egress.request(server.url, { maxResponseBytes: 1000 });
    expect(response.body).toHaveLength(1000);
  });
});

describe('egress: redirects', () => {
  const redirecting = () =>
    peer((request, res) => {
      const hops = /^\/hops\/(\d+)$/.exec(request.path);
      if (hops && Number(hops[1]) > 0) {
        res.writeHead(302, { location: `/hops/${Number(hops[1]) - 1}` });
        return res.end();
      }
      if (request.path === '/loop') {
        res.writeHead(307, { location: '/loop' });
        return res.end();
      }
      if (request.path === '/see-other') {
        res.writeHead(303, { location: '/landing' });
        return res.end();
      }
      if (request.path === '/temporary') {
        res.writeHead(307, { location: '/landing' });
        return res.end();
      }
      json(res, 200, { path: request.path, method: request.method, body: request.body });
    });

  it('follows redirects and counts them', async () => {
    const server = await redirecting();
    const { egress } = egressWith();
    const response = await egress.request(`${server.url}/hops/3`);
    expect(response.status).toBe(200);
    expect(response.redirects).toBe(3);
    expect(response.url).toBe(`${server.url}/hops/0`);
    expect(server.requests.map((request) => request.path)).toEqual(['/hops/3', '/hops/2', '/hops/1', '/hops/0']);
  });

  it('a redirect loop stops at the maximum', async () => {
    const server = await redirecting();
    const { egress } = egressWith();
    const error = await egress.request(`${server.url}/loop`, { maxRedirects: 3 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressTooManyRedirectsError);
    expect(server.requests).toHaveLength(4);
    await expect(egress.request(`${server.url}/loop`)).rejects.toThrow(EgressTooManyRedirectsError);
    expect(server.requests).toHaveLength(4 + 6);
  });

  it('maxRedirects 0 returns the redirect itself', async () => {
    const server = await redirecting();
    const { egress } = egressWith();
    const response = await egress.request(`${server.url}/hops/2`, { maxRedirects: 0 });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/hops/1');
    expect(response.redirects).toBe(0);
  });

  it('303 turns a POST into a GET without body; 307 repeats it as it was', async () => {
    const server = await redirecting();
    const { egress } = egressWith();
    const seeOther = await egress.request(`${server.url}/see-other`, { method: 'POST', body: { a: 1 } });
    expect(seeOther.json()).toEqual({ path: '/landing', method: 'GET', body: '' });
    expect(server.requests[1].headers['content-type']).toBeUndefined();
    const temporary = await egress.request(`${server.url}/temporary`, { method: 'POST', body: { a: 1 } });
    expect(temporary.json()).toEqual({ path: '/landing', method: 'POST', body: '{"a":1}' });
  });

  it('drops credentials when a redirect leaves the origin, keeps them on the same origin', async () => {
    const other = await peer((request, res) => json(res, 200, { authorization: request.headers.authorization ?? null, cookie: request.headers.cookie ?? null }), '127.0.0.2');
    const server = await peer((request, res) => {
      if (request.path === '/away') res.writeHead(302, { location: `${other.url}/landing` });
      else if (request.path === '/here') res.writeHead(302, { location: '/echo' });
      else return json(res, 200, { authorization: request.headers.authorization ?? null });
      res.end();
    });
    const { egress } = egressWith();
    const headers = { authorization: 'Bearer t0k3n', cookie: 'session=1' };
    expect((await egress.request(`${server.url}/away`, { headers })).json()).toEqual({ authorization: null, cookie: null });
    expect((await egress.request(`${server.url}/here`, { headers })).json()).toEqual({ authorization: 'Bearer t0k3n' });
  });

  it('refuses a redirect to another scheme', async () => {
    const server = await peer((_request, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    const { egress } = egressWith();
    await expect(egress.request(server.url)).rejects.toThrow(/scheme file: is not allowed/);
  });
});

describe('egress: retries', () => {
  const unavailable = () =>
    peer((request, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(`busy ${request.method}`);
    });

  it('retries a GET on 503 and returns the last answer when retries run out', async () => {
    const server = await unavailable();
    const { egress, lines } = egressWith();
    const response = await egress.request(server.url, { retries: 2 });
    expect(response.status).toBe(503);
    expect(response.text()).toBe('busy GET');
    expect(server.requests).toHaveLength(3);
    expect(lines.find((line) => line.message === 'egress call')).toMatchObject({ attempts: 3 });
  });

  it('the retry count defaults to EGRESS_MAX_RETRIES', async () => {
    const server = await unavailable();
    const { egress } = egressWith({ egressMaxRetries: 1 });
    await egress.request(server.url);
    expect(server.requests).toHaveLength(2);
  });

  it('a retry that succeeds returns the success', async () => {
    let calls = 0;
    const server = await peer((_request, res) => (++calls === 1 ? json(res, 502, {}) : json(res, 200, { calls })));
    const { egress } = egressWith();
    const response = await egress.request(server.url);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ calls: 2 });
  });

  it('does not retry a POST on 503 without an idempotency key', async () => {
    const server = await unavailable();
    const { egress } = egressWith();
    const response = await egress.request(server.url, { method: 'POST', body: { a: 1 }, retries: 2 });
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a POST that carries an idempotency key, sending the key each time', async () => {
    const server = await unavailable();
    const { egress } = egressWith();
    await egress.request(server.url, { method: 'POST', body: { a: 1 }, retries: 2, idempotencyKey: 'delivery-42' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => [request.headers['idempotency-key'], request.body])).toEqual(Array(3).fill(['delivery-42', '{"a":1}']));
  });

  it('does not retry statuses that are not transient', async () => {
    const server = await peer((_request, res) => json(res, 500, {}));
    const { egress } = egressWith();
    expect((await egress.request(server.url)).status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });

  it('a connection that breaks after the request was sent is retried for GET, not for POST', async () => {
    const server = await peer((_request, _res, req) => req.socket.destroy());
    const { egress } = egressWith();
    await expect(egress.request(server.url, { retries: 2 })).rejects.toThrow(EgressNetworkError);
    expect(server.requests).toHaveLength(3);
    await expect(egress.request(server.url, { method: 'POST', body: 'x', retries: 2 })).rejects.toThrow(EgressNetworkError);
    expect(server.requests).toHaveLength(4);
  });

  it('a refused connection is retried whatever the method: nothing was sent', async () => {
    const closedPort = await peer(() => {});
    const port = closedPort.port;
    await closedPort.close();
    let lookups = 0;
    const { egress } = egressWith(
      {},
      {
        resolve: async () => {
          lookups++;
          return [{ address: '127.0.0.1', family: 4 }];
        },
      },
    );
    const error = await egress.request(`http://down.example:${port}/`, { method: 'POST', body: 'x', retries: 2 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressNetworkError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(lookups).toBe(3);
  });

  it('does not start a retry the deadline would cut short', async () => {
    const server = await unavailable();
    // The first backoff is at least 1 s (half its 2 s ceiling), past the 900 ms deadline: the retry is not started.
    // The deadline is as long as that allows, so one local request fits in it even on a loaded machine
    // (at 400 ms it was a budget), and waiting out the deadline would still show.
    const { egress } = egressWith({}, { retryBackoffMs: 5000 });
    const started = Date.now();
    const response = await egress.request(server.url, { timeoutMs: 900, retries: 5 });
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe('egress: HTTPS', () => {
  let server: https.Server;
  let port: number;
  const servernames: string[] = [];
  let connections = 0;
  // The test name resolves to loopback; the certificate is for that name, not for 127.0.0.1.
  const resolve = async () => [{ address: '127.0.0.1', family: 4 }];

  beforeAll(async () => {
    server = https.createServer({ cert: TEST_CERT, key: TEST_KEY }, (req, res) => {
      servernames.push((req.socket as TLSSocket).servername || '');
      res.end('secure');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  it('connects by name through the guarded lookup, with SNI and certificate checked against the name', async () => {
    const { egress } = egressWith({}, { resolve, trustedCa: TEST_CERT });
    const response = await egress.request(`https://egress-test.example:${port}/`);
    expect(response.text()).toBe('secure');
    expect(servernames).toEqual(['egress-test.example']);
  });

  it('verifies certificates: an untrusted one fails, as does one for another name', async () => {
    const untrusted = egressWith({}, { resolve }).egress;
    await expect(untrusted.request(`https://egress-test.example:${port}/`, { retries: 0 })).rejects.toThrow(EgressNetworkError);
    const { egress } = egressWith({}, { resolve, trustedCa: TEST_CERT });
    await expect(egress.request(`https://other.example:${port}/`, { retries: 0 })).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('refuses a name resolving to a refused address before connecting', async () => {
    const { egress } = egressWith({ egressAllowCidrs: [] }, { resolve, trustedCa: TEST_CERT });
    const before = connections;
    await expect(egress.request(`https://egress-test.example:${port}/`)).rejects.toThrow(EgressRefusedError);
    expect(connections).toBe(before);
  });
});
