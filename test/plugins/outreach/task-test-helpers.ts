import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { coreServices, definePlugin } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import type { ApiClient, TestKernel, TestTenant } from '../../../core/testing';
import { taskExecutors, type TaskJson } from '../../../plugins/outreach';

/** Shared helpers of the task tests (not a test file itself). */

const PLUGINS = path.resolve(__dirname, '../../../plugins');
export const KERNEL_PLUGINS = ['agents', 'conversations', 'contacts', 'outreach'].map((id) => path.join(PLUGINS, id));
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type Json = Record<string, any>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/** Polls until `check` returns something truthy, then returns it; fails after the deadline. */
export async function eventually<T>(check: () => Promise<T | false | null | undefined> | T | false | null | undefined, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await sleep(50);
  }
}

export async function createAgent(api: ApiClient, name = 'Outreach'): Promise<string> {
  return (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
}

let contactCounter = 0;
/** A new contact of the tenant (unique email), through the contacts plugin's route. */
export async function createContact(api: ApiClient, body: Json = {}): Promise<Json> {
  contactCounter += 1;
  const res = await api
    .post('/api/v1/contacts')
    .send({ name: 'Test', email: `contact-${process.pid}-${Date.now()}-${contactCounter}@example.com`, ...body });
  if (res.status !== 201) throw new Error(`create contact -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** POST /api/v1/tasks, expecting 201; returns the task. */
export async function createTask(api: ApiClient, body: Json): Promise<TaskJson> {
  const res = await api.post('/api/v1/tasks').send(body);
  if (res.status !== 201) throw new Error(`create task -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function readTask(api: ApiClient, uuid: string): Promise<TaskJson> {
  return (await api.get(`/api/v1/tasks/${uuid}`).expect(200)).body.data;
}

/** Waits until the task reaches one of these statuses (or times out). */
export function untilStatus(api: ApiClient, uuid: string, statuses: string[], timeoutMs = 15_000): Promise<TaskJson> {
  return eventually(
    async () => {
      const task = await readTask(api, uuid);
      return statuses.includes(task.status) && task;
    },
    timeoutMs,
    `task ${uuid} in ${statuses.join('|')}`,
  );
}

/** Runs `work` as the tenant inside a transaction of the kernel (for bus publishes and SQL). */
export function asTenant<T>(kit: TestKernel, tenant: TestTenant, work: () => Promise<T>): Promise<T> {
  return runInContext({ tenant: tenant.tenant }, () => kit.kernel.orm.em.fork().transactional(() => work()));
}

export async function sql<T = Json>(kit: TestKernel, query: string, params: unknown[] = []): Promise<T[]> {
  return kit.kernel.orm.em.fork().getConnection().execute(query, params);
}

/**
 * A rule of the tenant written straight to the table: by default open every day, all
 * day (a window the API refuses: its end must come after its start), no gap.
 */
export async function insertRule(kit: TestKernel, tenantUuid: string, values: Json = {}): Promise<string> {
  const row = {
    weekdays: [1, 2, 3, 4, 5, 6, 7],
    start_time: '00:00',
    end_time: '00:00',
    timezone: 'UTC',
    max_attempts: 3,
    min_gap_minutes: 0,
    is_active: true,
    ...values,
  };
  const [rule] = await sql(
    kit,
    'insert into outreach_rules (uuid, tenant_uuid, created_at, updated_at, name, weekdays, start_time, end_time, timezone, max_attempts, min_gap_minutes, is_active) ' +
      `values (gen_random_uuid(), ?, now(), now(), 'Test rule', ?::jsonb, ?, ?, ?, ?, ?, ?) returning uuid`,
    [tenantUuid, JSON.stringify(row.weekdays), row.start_time, row.end_time, row.timezone, row.max_attempts, row.min_gap_minutes, row.is_active],
  );
  return rule.uuid;
}

/** One call the probe executor ran. */
export interface ProbeCall {
  uuid: string;
  attempt: number;
  start: number;
  end: number;
  task: TaskJson;
}

/** Every call of the probe executor in this test file, and every `task.*` event delivered. */
export const probeCalls: ProbeCall[] = [];
export const taskEvents: Array<{ topic: string; payload: any; id: string }> = [];

/**
 * A test plugin: a `make_call` executor (no calls plugin exists yet) scripted by the
 * task's `metadata.probe`: `{fail_times, sleep_ms}` (fails the first `fail_times`
 * attempts, works for `sleep_ms` each time), and a consumer of every `task.*` event.
 */
export const taskProbe = definePlugin({
  id: 'task-probe',
  dependsOn: ['outreach'],
  contributes: [
    taskExecutors.add({
      type: 'make_call',
      description: 'Test executor scripted by metadata.probe',
      async execute({ task, attempt }) {
        const script = (task.metadata.probe ?? {}) as { fail_times?: number; sleep_ms?: number };
        const start = Date.now();
        if (script.sleep_ms) await sleep(script.sleep_ms);
        probeCalls.push({ uuid: task.uuid, attempt, start, end: Date.now(), task });
        if (attempt <= (script.fail_times ?? 0)) throw new Error(`probe failure ${attempt}`);
        return { called: true, attempt };
      },
    }),
  ],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'task-events', topics: ['task.*'] }, async (message) => {
      taskEvents.push({ topic: message.topic, payload: message.payload, id: message.id });
    });
  },
});

export const eventsFor = (topic: string, taskUuid: string) => taskEvents.filter((event) => event.topic === topic && event.payload?.task?.uuid === taskUuid);

export interface CapturedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local HTTP server that records requests and answers with `answer(request)` (default 200 `{"ok":true}`). */
export async function startWebhookServer(answer: (request: CapturedRequest) => { status: number; body?: string; delayMs?: number } = () => ({ status: 200 })) {
  const requests: CapturedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(request);
      const reply = answer(request);
      if (reply.delayMs) await sleep(reply.delayMs);
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? '{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
