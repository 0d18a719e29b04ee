import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import supertest from 'supertest';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/**
 * The built-in apps end to end, through the HTTP API only: a webhook call starts a
 * deployed flow that branches on the body, calls a peer API over HTTP, waits, and
 * records every step it ran.
 *
 *   1 webhook.catch_hook
 *   2 logic.if_condition     total > 100
 *     3   (true)  http.request   POST /vip
 *     4   (true)  logic.delay    1 second
 *     5   (false) http.request   POST /regular
 *   6 logic.set_variables    {order, branch, vip_status}
 */

const PLUGINS = ['agents', 'flows', 'app-webhook', 'app-logic', 'app-http'].map((id) => path.resolve(__dirname, '../../../plugins', id));

interface Call {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

let kit: TestKernel;
let peer: http.Server;
let peerUrl: string;
const calls: Call[] = [];
let failVip = false;

beforeAll(async () => {
  peer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      calls.push({ path: req.url!, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
      if (failVip && req.url === '/vip') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down for maintenance"}');
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ticket: `T-${calls.length}`, path: req.url }));
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(async () => {
  await kit?.stop();
  peer?.close();
});
beforeEach(() => {
  calls.length = 0;
  failVip = false;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function step(flow: string, body: Record<string, unknown>): Promise<{ uuid: string; position: number; status: string }> {
  return (await kit.api.post(`/api/v1/flow/${flow}/steps`).send(body).expect(201)).body.data;
}

/** Builds and deploys the flow above; returns its uuid, its hook path and its steps by name. */
async function deployedFlow() {
  const flow = (await kit.api.post('/api/v1/flow').send({ name: 'Order routing' }).expect(201)).body.data.uuid as string;
  const hook = (await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook' }).expect(201)).body.data;
  const branch = await step(flow, { app_uid: 'logic', action_key: 'if_condition', config: { conditions: [{ left: '{{step1.body.total}}', operator: 'greater_than', right: 100 }] } });
  const vip = await step(flow, {
    app_uid: 'http',
    action_key: 'request',
    parent_step_uuid: branch.uuid,
    branch_key: 'true',
    config: { method: 'POST', url: `${peerUrl}/vip`, headers: { 'X-Order': '{{step1.body.id}}' }, body: { order: '{{step1.body.id}}', total: '{{step1.body.total}}' } },
  });
  const wait = await step(flow, { app_uid: 'logic', action_key: 'delay', parent_step_uuid: branch.uuid, branch_key: 'true', insert_after_step_uuid: vip.uuid, config: { amount: 1, unit: 'seconds' } });
  const regular = await step(flow, {
    app_uid: 'http',
    action_key: 'request',
    parent_step_uuid: branch.uuid,
    branch_key: 'false',
    config: { method: 'POST', url: `${peerUrl}/regular`, body: { order: '{{step1.body.id}}' } },
  });
  const summary = await step(flow, {
    app_uid: 'logic',
    action_key: 'set_variables',
    config: { variables: { order: '{{step1.body.id}}', branch: '{{step2.branch}}', vip_status: '{{step3.status}}', note: 'order {{step1.body.id}} done' } },
  });
  expect([hook, branch, vip, wait, regular, summary].map((s) => [s.position, s.status])).toEqual([
    [1, 'ready'],
    [2, 'ready'],
    [3, 'ready'],
    [4, 'ready'],
    [5, 'ready'],
    [6, 'ready'],
  ]);
  await kit.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return { flow, hookPath: new URL(hook.config.hook_url).pathname, steps: { branch, vip, wait, regular, summary } };
}

const postHook = (hookPath: string, body: unknown) =>
  supertest(kit.url).post(hookPath).set('Host', `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}`).send(body as object).expect(202);

async function executionUntil(flow: string, execution: string, done: (body: Record<string, any>) => boolean, timeoutMs = 15_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = (await kit.api.get(`/api/v1/flow/${flow}/executions/${execution}`).expect(200)).body.data;
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`execution ${execution} did not get there in time: ${JSON.stringify(body)}`);
    await sleep(50);
  }
}
const finished = (body: Record<string, any>) => body.status === 'succeeded' || body.status === 'failed';

describe('a deployed webhook flow with if_condition, http and delay', () => {
  it('true branch: calls the peer with the rendered body and its idempotency key, waits without holding a worker, then finishes', async () => {
    const { flow, hookPath, steps } = await deployedFlow();
    const { execution_uuid: execution } = (await postHook(hookPath, { id: 'A-7', total: 150 })).body.data;

    // While the delay runs the execution is parked: the step is `waiting`, nothing after it has run.
    const paused = await executionUntil(flow, execution, (body) => body.steps.some((s: { status: string }) => s.status === 'waiting'));
    expect(paused.status).toBe('running');
    expect(paused.steps.map((s: { position: number; status: string }) => [s.position, s.status])).toEqual([
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'waiting'],
    ]);

    const done = await executionUntil(flow, execution, finished);
    expect(done).toMatchObject({ uuid: execution, flow_uuid: flow, status: 'succeeded', error: null, version: 1, trigger_event: { body: { id: 'A-7', total: 150 } } });
    expect(new Date(done.finished_at).getTime() - new Date(done.started_at).getTime()).toBeGreaterThanOrEqual(1000);
    expect(done.steps).toEqual([
      {
        step_uuid: steps.branch.uuid,
        position: 2,
        status: 'succeeded',
        request: { conditions: [{ left: 150, operator: 'greater_than', right: 100 }] },
        response: { result: true, branch: 'true', conditions: [{ operator: 'greater_than', result: true }] },
        error: null,
        duration_ms: expect.any(Number),
      },
      {
        step_uuid: steps.vip.uuid,
        position: 3,
        status: 'succeeded',
        request: { method: 'POST', url: `${peerUrl}/vip`, headers: { 'X-Order': 'A-7' }, body: { order: 'A-7', total: 150 } },
        response: { status: 201, headers: expect.objectContaining({ 'content-type': 'application/json' }), body: { ticket: 'T-1', path: '/vip' } },
        error: null,
        duration_ms: expect.any(Number),
      },
      {
        step_uuid: steps.wait.uuid,
        position: 4,
        status: 'succeeded',
        request: { amount: 1, unit: 'seconds' },
        response: { until: expect.any(String) },
        error: null,
        duration_ms: expect.any(Number),
      },
      {
        step_uuid: steps.summary.uuid,
        position: 6,
        status: 'succeeded',
        request: expect.any(Object),
        response: { order: 'A-7', branch: 'true', vip_status: 201, note: 'order A-7 done' },
        error: null,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(calls).toEqual([
      { path: '/vip', headers: expect.objectContaining({ 'x-order': 'A-7', 'idempotency-key': `${execution}:${steps.vip.uuid}` }), body: { order: 'A-7', total: 150 } },
    ]);
  });

  it('false branch: runs only the false child and the steps after the branch', async () => {
    const { flow, hookPath, steps } = await deployedFlow();
    const { execution_uuid: execution } = (await postHook(hookPath, { id: 'B-2', total: '40' })).body.data;
    const done = await executionUntil(flow, execution, finished);
    expect(done.status).toBe('succeeded');
    expect(done.steps.map((s: { step_uuid: string; position: number; status: string }) => [s.step_uuid, s.position, s.status])).toEqual([
      [steps.branch.uuid, 2, 'succeeded'],
      [steps.regular.uuid, 5, 'succeeded'],
      [steps.summary.uuid, 6, 'succeeded'],
    ]);
    expect(done.steps[0].response).toMatchObject({ result: false, branch: 'false' });
    expect(done.steps[2].response).toEqual({ order: 'B-2', branch: 'false', vip_status: null, note: 'order B-2 done' });
    expect(calls.map((call) => [call.path, call.body])).toEqual([['/regular', { order: 'B-2' }]]);
  });

  it('an HTTP error status fails the execution at that step, with the peer’s answer in the error, and nothing after it runs', async () => {
    failVip = true;
    const { flow, hookPath, steps } = await deployedFlow();
    const { execution_uuid: execution } = (await postHook(hookPath, { id: 'C-3', total: 500 })).body.data;
    const done = await executionUntil(flow, execution, finished);
    expect(done).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 503') });
    expect(done.steps.map((s: { position: number; status: string }) => [s.position, s.status])).toEqual([
      [2, 'succeeded'],
      [3, 'failed'],
    ]);
    expect(done.steps[1]).toMatchObject({ step_uuid: steps.vip.uuid, response: null, error: expect.stringMatching(/^HTTP 503 from 127\.0\.0\.1:\d+: \{"error":"down for maintenance"\}$/) });
  });

  it('lists the flow’s executions newest first, each with the version that ran', async () => {
    const { flow, hookPath } = await deployedFlow();
    const first = (await postHook(hookPath, { id: 'D-1', total: 1 })).body.data.execution_uuid;
    const second = (await postHook(hookPath, { id: 'D-2', total: 2 })).body.data.execution_uuid;
    await executionUntil(flow, first, finished);
    await executionUntil(flow, second, finished);
    const list = (await kit.api.get(`/api/v1/flow/${flow}/executions`).expect(200)).body.data.items;
    expect(list.map((e: { uuid: string; status: string; version: number }) => [e.uuid, e.status, e.version])).toEqual([
      [second, 'succeeded', 1],
      [first, 'succeeded', 1],
    ]);
  });
});
