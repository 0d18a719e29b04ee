import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressRefusedError } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { httpApp } from '../../../plugins/app-http';
import { inputProblems, runAction } from '../../../plugins/flows/testing-kit';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A peer API on loopback that records what it receives and answers what the test says. */
let kit: TestKernel;
let server: http.Server;
let base: string;
const received: Received[] = [];
let answer: { status: number; headers: Record<string, string>; body: string } = { status: 200, headers: {}, body: '' };

beforeAll(async () => {
  kit = await startTestKernel();
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.close();
  await kit?.stop();
});
beforeEach(() => {
  received.length = 0;
  answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
});

const request = httpApp.actions!.find((action) => action.key === 'request')!;

/** The action as the engine runs it (the test kit), as step `step-2` of execution `exec-1`, through the kernel's egress. */
const run = async (input: Record<string, unknown>) => (await runAction(httpApp, 'request', input, { kit, executionUuid: 'exec-1', step: { stepUuid: 'step-2' } })).output;

describe('http request action', () => {
  it('sends the method, query, headers and a JSON body, with the step’s Idempotency-Key', async () => {
    const output = await run({
      method: 'POST',
      url: `${base}/orders?existing=1`,
      query: { page: 2, tag: ['a', 'b'], draft: false },
      headers: { 'X-Shop': 'acme' },
      body: { sku: 'A-1', qty: 2 },
    });
    expect(output).toEqual({ status: 200, headers: expect.objectContaining({ 'content-type': 'application/json' }), body: { ok: true } });
    const [call] = received;
    expect(call.method).toBe('POST');
    expect(new URL(call.url, base).searchParams.toString()).toBe('existing=1&page=2&tag=a&tag=b&draft=false');
    expect(call.headers).toMatchObject({ 'x-shop': 'acme', 'idempotency-key': 'exec-1:step-2', 'content-type': 'application/json' });
    expect(JSON.parse(call.body)).toEqual({ sku: 'A-1', qty: 2 });
  });

  it('sends a text body as it is, lets the user choose the content type and replace the Idempotency-Key', async () => {
    await run({ method: 'PUT', url: `${base}/note`, body: 'hello', headers: { 'Idempotency-Key': 'mine' } });
    await run({ method: 'PATCH', url: `${base}/csv`, body: 'a,b', headers: { 'Content-Type': 'text/csv' } });
    expect(received[0]).toMatchObject({ body: 'hello', headers: { 'content-type': 'text/plain; charset=utf-8', 'idempotency-key': 'mine' } });
    expect(received[1]).toMatchObject({ body: 'a,b', headers: { 'content-type': 'text/csv' } });
  });

  it('sends no body with GET, even when one is configured', async () => {
    await run({ method: 'GET', url: `${base}/items`, body: { ignored: true } });
    expect(received[0]).toMatchObject({ method: 'GET', body: '' });
    expect(received[0].headers['content-type']).toBeUndefined();
  });

  it('outputs a text body as text, malformed JSON as its text, and an empty body as null', async () => {
    answer = { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' };
    expect(await run({ method: 'GET', url: base })).toMatchObject({ body: '<p>hi</p>' });
    answer = { status: 200, headers: { 'content-type': 'application/problem+json' }, body: '{"broken' };
    expect(await run({ method: 'GET', url: base })).toMatchObject({ body: '{"broken' });
    answer = { status: 204, headers: {}, body: '' };
    expect(await run({ method: 'DELETE', url: `${base}/x` })).toMatchObject({ status: 204, body: null });
  });

  it('fails the step on a status of 400 or more, naming the status, the host and the start of the body', async () => {
    answer = { status: 422, headers: { 'content-type': 'application/json' }, body: '{"error":"sku unknown"}' };
    await expect(run({ method: 'POST', url: `${base}/orders`, body: {} })).rejects.toThrow(`HTTP 422 from ${new URL(base).host}: {"error":"sku unknown"}`);
  });

  it('with fail_on_error_status false, an error status is the output like any other', async () => {
    answer = { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"gone"}' };
    expect(await run({ method: 'GET', url: base, fail_on_error_status: false })).toMatchObject({ status: 404, body: { error: 'gone' } });
  });

  it('goes through egress: a cloud metadata address is refused', async () => {
    await expect(run({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' })).rejects.toBeInstanceOf(EgressRefusedError);
  });

  it('its input needs a method and an http(s) URL, and refuses header names and values that would break the request', () => {
    const problems = (config: unknown) => inputProblems(request, config);
    expect(problems({ method: 'GET', url: 'https://api.example.com/x' })).toEqual({});
    expect(problems({ url: 'ftp://example.com/file' })).toMatchObject({ 'config.method': ['is required'], 'config.url': expect.any(Array) });
    expect(problems({ method: 'FETCH', url: 'https://x.example' })).toHaveProperty(['config.method']);
    expect(problems({ method: 'GET', url: 'https://x.example', headers: { 'Bad Name': 'x' } })).toHaveProperty(['config.headers.Bad Name']);
    expect(problems({ method: 'GET', url: 'https://x.example', headers: { 'X-A': 'one\r\nX-B: two' } })).toHaveProperty(['config.headers.X-A']);
  });
});
