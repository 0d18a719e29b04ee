import crypto from 'node:crypto';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { createScheduler } from '../../../plugins/outreach/tasks/task-scheduling';
import { nextAllowedSlot } from '../../../plugins/outreach/tasks/rule-window';
import { TASK_RUNNER_CONCURRENCY } from '../../../plugins/outreach/tasks/task-runner';
import {
  ISO,
  KERNEL_PLUGINS,
  createAgent,
  createContact,
  createTask,
  eventsFor,
  eventually,
  inMs,
  insertRule as insertTenantRule,
  probeCalls,
  readTask,
  sql,
  startWebhookServer,
  taskProbe,
  untilStatus,
  type Json,
} from './task-test-helpers';
import type { TaskJson } from '../../../plugins/outreach';

let kit: TestKernel;
let agent: string;
let contact: Json;
let hooks: Awaited<ReturnType<typeof startWebhookServer>>;
/** Per path of the webhook server: the statuses to answer, in turn (200 once they run out). */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  hooks = await startWebhookServer((request) => ({ status: answers.get(request.url)?.shift() ?? 200, body: JSON.stringify({ received: request.url }) }));
  kit = await startTestKernel({ plugins: [...KERNEL_PLUGINS, taskProbe] });
  agent = await createAgent(kit.api);
  contact = await createContact(kit.api, { phone_number: '+34600000001' });
});
afterAll(async () => {
  await kit?.stop();
  await hooks?.close();
});

const MINUTE = 60_000;
const callsOf = (uuid: string) => probeCalls.filter((call) => call.uuid === uuid);
const hookPath = () => `/hook/${crypto.randomBytes(4).toString('hex')}`;
const requestsTo = (path: string) => hooks.requests.filter((request) => request.url === path);
/** A make_call task run by the probe executor, scripted by `probe`. */
const probeTask = (probe: Json, extra: Json = {}) =>
  createTask(kit.api, { type: 'make_call', agent_uuid: agent, contact_uuid: contact.uuid, scheduled_at: inMs(1000), metadata: { probe }, ...extra });

const insertRule = (values: Json) => insertTenantRule(kit, kit.tenant.uuid, values);

describe('a webhook task', () => {
  it('waits for scheduled_at, POSTs the task signed with its secret, completes with the answer and publishes task.completed', async () => {
    const path = hookPath();
    const secret = 'top-secret';
    const created = await createTask(kit.api, {
      type: 'webhook',
      title: 'Notify',
      agent_uuid: agent,
      contact_uuid: contact.uuid,
      scheduled_at: inMs(1500),
      task_data: { url: `${hooks.url}${path}`, secret },
    });
    expect(created.status).toBe('scheduled');
    const done = await untilStatus(kit.api, created.uuid, ['completed', 'failed']);
    expect(done).toMatchObject({
      status: 'completed',
      attempts: 1,
      next_attempt_at: null,
      last_error: null,
      started_at: expect.stringMatching(ISO),
      finished_at: expect.stringMatching(ISO),
      result: { status: 200, body: { received: path } },
    });
    const [request] = requestsTo(path);
    expect(requestsTo(path)).toHaveLength(1);
    expect(request.at).toBeGreaterThanOrEqual(new Date(created.scheduled_at).getTime() - 300);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['idempotency-key']).toBe(`${created.uuid}:1`);
    expect(request.headers['x-switchboard-task']).toBe(created.uuid);
    // The signature: HMAC-SHA256 of "<timestamp>.<body>" with the task's secret.
    const timestamp = String(request.headers['x-switchboard-timestamp']);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const expected = `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`;
    expect(request.headers['x-switchboard-signature']).toBe(expected);
    // The body is the task as the API shows it, during its attempt; never the secret.
    expect(request.body).not.toContain(secret);
    expect(JSON.parse(request.body)).toMatchObject({ uuid: created.uuid, title: 'Notify', status: 'in_progress', attempts: 1, task_data: { url: `${hooks.url}${path}`, has_secret: true } });
    const [event] = await eventually(() => eventsFor('task.completed', created.uuid).length > 0 && eventsFor('task.completed', created.uuid));
    expect(event.payload).toEqual({ task: done });
  });

  it('without a secret it is not signed', async () => {
    const path = hookPath();
    const task = await createTask(kit.api, { type: 'webhook', agent_uuid: agent, contact_uuid: contact.uuid, task_data: { url: `${hooks.url}${path}` } });
    await untilStatus(kit.api, task.uuid, ['completed']);
    expect(requestsTo(path)[0].headers['x-switchboard-signature']).toBeUndefined();
  });

  it('a non-2xx answer fails the attempt; retries spent: failed with the last error and task.failed', async () => {
    const path = hookPath();
    answers.set(path, [500, 503, 404]);
    const task = await createTask(kit.api, {
      type: 'webhook',
      agent_uuid: agent,
      contact_uuid: contact.uuid,
      max_retry_attempts: 2,
      retry_interval_minutes: 0,
      task_data: { url: `${hooks.url}${path}` },
    });
    const failed = await untilStatus(kit.api, task.uuid, ['failed', 'completed']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, result: null, next_attempt_at: null, finished_at: expect.stringMatching(ISO) });
    expect(failed.last_error).toMatch(/^the webhook answered 404/);
    expect(requestsTo(path).map((request) => request.headers['idempotency-key'])).toEqual([1, 2, 3].map((n) => `${task.uuid}:${n}`));
    const [event] = await eventually(() => eventsFor('task.failed', task.uuid).length > 0 && eventsFor('task.failed', task.uuid));
    expect(event.payload.task).toEqual(failed);
  });

  it('an unreachable URL fails the attempt', async () => {
    const task = await createTask(kit.api, { type: 'webhook', agent_uuid: agent, contact_uuid: contact.uuid, max_retry_attempts: 0, task_data: { url: 'http://127.0.0.1:1/nothing' } });
    const failed = await untilStatus(kit.api, task.uuid, ['failed', 'completed']);
    expect(failed.last_error).toMatch(/^the webhook could not be called/);
  });
});

describe('follow_up and custom tasks', () => {
  it.each([
    ['follow_up', 'task.follow_up'],
    ['custom', 'task.custom'],
  ])('%s publishes %s with the task for flows; the result is the event id', async (type, topic) => {
    const task = await createTask(kit.api, { type, agent_uuid: agent, contact_uuid: contact.uuid, task_data: { note: 'call back' } });
    const done = await untilStatus(kit.api, task.uuid, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    const [event] = await eventually(() => eventsFor(topic, task.uuid).length > 0 && eventsFor(topic, task.uuid));
    expect(done.result).toEqual({ event_id: event.id });
    expect(event.payload.task).toMatchObject({ uuid: task.uuid, status: 'in_progress', task_data: { note: 'call back' } });
  });
});

describe('retries', () => {
  it('a failing executor is retried until it works', async () => {
    const task = await probeTask({ fail_times: 2 }, { retry_interval_minutes: 0, max_retry_attempts: 3 });
    const done = await untilStatus(kit.api, task.uuid, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'completed', attempts: 3, last_error: null, result: { called: true, attempt: 3 } });
    expect(callsOf(task.uuid).map((call) => call.attempt)).toEqual([1, 2, 3]);
  });

  it('max_retry_attempts 0: one attempt only', async () => {
    const task = await probeTask({ fail_times: 5 }, { max_retry_attempts: 0 });
    const failed = await untilStatus(kit.api, task.uuid, ['failed', 'completed']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: 'probe failure 1' });
  });

  it.each([
    ['fixed', { retry_interval_minutes: 3 }, [3, 3]],
    ['exponential', { retry_interval_minutes: 2 }, [2, 4]],
    ['custom', { retry_interval_minutes: 60, retry_schedule: [1, 7] }, [1, 7]],
  ])('%s: next_attempt_at after each failure follows the strategy', async (strategy, settings, gaps) => {
    const task = await probeTask({ fail_times: 5 }, { retry_strategy: strategy, max_retry_attempts: 2, ...settings });
    for (const [n, gap] of gaps.entries()) {
      const before = Date.now();
      if (n > 0) {
        // Make the retry due now instead of in minutes: the gap is what is checked, not the wait.
        await sql(kit, 'update tasks set next_attempt_at = now() where uuid = ?', [task.uuid]);
        await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({}).expect(200);
      }
      const waiting = await eventually(async () => {
        const current = await readTask(kit.api, task.uuid);
        return current.attempts === n + 1 && current.status === 'scheduled' && current;
      });
      const after = Date.now();
      expect(waiting.last_error).toBe(`probe failure ${n + 1}`);
      const call = callsOf(task.uuid).find((c) => c.attempt === n + 1)!;
      const next = new Date(waiting.next_attempt_at!).getTime();
      expect(next).toBeGreaterThanOrEqual(call.end + gap * MINUTE - 5);
      expect(next).toBeLessThanOrEqual(after + gap * MINUTE);
      expect(next).toBeGreaterThanOrEqual(Math.max(before, call.start) + gap * MINUTE - 5);
    }
    await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200);
  });

  it('a retry that would come after expires_at expires the task instead', async () => {
    const task = await probeTask({ fail_times: 5 }, { retry_interval_minutes: 10, expires_at: inMs(5 * MINUTE) });
    const expired = await untilStatus(kit.api, task.uuid, ['expired', 'failed', 'completed']);
    expect(expired).toMatchObject({ status: 'expired', attempts: 1, last_error: 'probe failure 1', next_attempt_at: null });
    await eventually(() => eventsFor('task.expired', task.uuid).length === 1);
  });
});

describe('expiry', () => {
  it('a task whose expires_at passed before it ran expires without running', async () => {
    const task = await probeTask({}, { scheduled_at: inMs(1500), expires_at: inMs(60 * MINUTE) });
    // Its expiry passes before its due time comes (an operator moved it; the API keeps expires_at after scheduled_at).
    await sql(kit, `update tasks set expires_at = now() where uuid = ?`, [task.uuid]);
    const expired = await untilStatus(kit.api, task.uuid, ['expired', 'completed', 'failed']);
    expect(expired).toMatchObject({ status: 'expired', attempts: 0, last_error: 'expired before it could run' });
    expect(callsOf(task.uuid)).toEqual([]);
  });
});

describe('cancelled and edited tasks', () => {
  it('a cancelled task never runs', async () => {
    // Far enough ahead that a busy machine still cancels it before it is due.
    const task = await probeTask({}, { scheduled_at: inMs(2000) });
    await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200);
    // Its due message came and was handled (on the in-process bus the row goes once the runner is done with it).
    await eventually(async () => (await sql(kit, `select 1 from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = ?`, [task.uuid])).length === 0, 15_000, 'the due message handled');
    expect(callsOf(task.uuid)).toEqual([]);
    expect((await readTask(kit.api, task.uuid)).status).toBe('cancelled');
  });

  it('a task moved later runs at its new time, once', async () => {
    // Far enough ahead that a busy machine still moves it before it is due.
    const task = await probeTask({}, { scheduled_at: inMs(2000) });
    const later = inMs(3500);
    await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ scheduled_at: later }).expect(200);
    const done = await untilStatus(kit.api, task.uuid, ['completed']);
    expect(callsOf(task.uuid)).toHaveLength(1);
    expect(callsOf(task.uuid)[0].start).toBeGreaterThanOrEqual(new Date(later).getTime() - 300);
    expect(done.attempts).toBe(1);
  });
});

describe('rule windows', () => {
  const hm = (date: Date, zone: string) => new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date);

  /** A window that opens two hours from now (to the minute) in `zone`, an hour long. */
  function windowAhead(zone: string) {
    const opens = new Date(Math.ceil((Date.now() + 2 * 3600_000) / MINUTE) * MINUTE);
    return { opens, start_time: hm(opens, zone), end_time: hm(new Date(opens.getTime() + 3600_000), zone) };
  }

  it('outside its rule’s window, read in the contact’s zone, a task is postponed to the window’s start', async () => {
    const tokyoContact = await createContact(kit.api, { timezone: 'Asia/Tokyo' });
    const window = windowAhead('Asia/Tokyo');
    const rule = await insertRule({ start_time: window.start_time, end_time: window.end_time, timezone: 'America/New_York' });
    const task = await probeTask({}, { contact_uuid: tokyoContact.uuid, rule_uuid: rule, timezone: 'Europe/Madrid' });
    const postponed = await eventually(async () => {
      const current = await readTask(kit.api, task.uuid);
      return current.next_attempt_at !== task.next_attempt_at && current;
    });
    expect(postponed).toMatchObject({ status: 'scheduled', attempts: 0, next_attempt_at: window.opens.toISOString() });
    expect(callsOf(task.uuid)).toEqual([]);
    // Its due message waits for the window.
    const due = await sql(kit, `select due_at from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = ?`, [task.uuid]);
    expect(due.map((row) => new Date(row.due_at).toISOString())).toEqual([window.opens.toISOString()]);
  });

  it('without a contact zone, the task’s zone; without either, the rule’s', async () => {
    const noZone = await createContact(kit.api);
    const kolkata = windowAhead('Asia/Kolkata');
    const byTask = await probeTask({}, { contact_uuid: noZone.uuid, timezone: 'Asia/Kolkata', rule_uuid: await insertRule({ ...kolkata, timezone: 'UTC' }) });
    const sydney = windowAhead('Australia/Sydney');
    const byRule = await probeTask({}, { contact_uuid: noZone.uuid, rule_uuid: await insertRule({ ...sydney, timezone: 'Australia/Sydney' }) });
    for (const [task, window] of [
      [byTask, kolkata],
      [byRule, sydney],
    ] as const) {
      const postponed = await eventually(async () => {
        const current = await readTask(kit.api, task.uuid);
        return current.next_attempt_at !== task.next_attempt_at && current;
      });
      expect(postponed.next_attempt_at).toBe(window.opens.toISOString());
    }
  });

  it('inside the window the task runs; an inactive rule does not hold it', async () => {
    const now = new Date();
    const open = await probeTask({}, { rule_uuid: await insertRule({ weekdays: [1, 2, 3, 4, 5, 6, 7], start_time: '00:00', end_time: '00:00' }) });
    const closedButInactive = windowAhead('UTC');
    const inactive = await probeTask({}, { rule_uuid: await insertRule({ ...closedButInactive, is_active: false }) });
    expect((await untilStatus(kit.api, open.uuid, ['completed'])).attempts).toBe(1);
    expect((await untilStatus(kit.api, inactive.uuid, ['completed'])).attempts).toBe(1);
    expect(nextAllowedSlot(now, { weekdays: [1, 2, 3, 4, 5, 6, 7], startTime: '00:00', endTime: '00:00' }, 'UTC')).toBe(now);
  });

  it('the rule caps the attempts and sets the least gap between them', async () => {
    const capped = await probeTask({ fail_times: 10 }, { max_retry_attempts: 5, retry_interval_minutes: 0, rule_uuid: await insertRule({ max_attempts: 2 }) });
    expect(await untilStatus(kit.api, capped.uuid, ['failed', 'completed'])).toMatchObject({ status: 'failed', attempts: 2, last_error: 'probe failure 2' });

    const gapped = await probeTask({ fail_times: 10 }, { retry_interval_minutes: 1, rule_uuid: await insertRule({ min_gap_minutes: 30 }) });
    const waiting = await eventually(async () => {
      const current = await readTask(kit.api, gapped.uuid);
      return current.attempts === 1 && current.status === 'scheduled' && current;
    });
    const call = callsOf(gapped.uuid)[0];
    expect(new Date(waiting.next_attempt_at!).getTime()).toBeGreaterThanOrEqual(call.end + 30 * MINUTE - 5);
    expect(new Date(waiting.next_attempt_at!).getTime()).toBeLessThanOrEqual(Date.now() + 30 * MINUTE);
    await kit.api.post(`/api/v1/tasks/${gapped.uuid}/cancel`).expect(200);
  });

  it('a window that opens only after the task expires expires it', async () => {
    const window = windowAhead('UTC');
    const task = await probeTask({}, { rule_uuid: await insertRule(window), expires_at: inMs(30 * MINUTE) });
    expect(await untilStatus(kit.api, task.uuid, ['expired', 'completed'])).toMatchObject({
      status: 'expired',
      attempts: 0,
      last_error: 'its rule’s next window opens after it expires',
    });
  });
});

describe('priority', () => {
  it('when many are due, the lowest priority number runs first whatever order they were made in', async () => {
    const tenant = await kit.createTenant();
    const tenantAgent = await createAgent(tenant.api);
    const tenantContact = await createContact(tenant.api);
    // More tasks than the runner takes at once, made worst first, all due at the same moment.
    const count = TASK_RUNNER_CONCURRENCY * 3;
    const scheduledAt = inMs(3000);
    const tasks: TaskJson[] = [];
    for (let n = 0; n < count; n++) {
      const priority = 10 - Math.floor((n * 10) / count);
      tasks.push(
        await createTask(tenant.api, {
          type: 'make_call',
          agent_uuid: tenantAgent,
          contact_uuid: tenantContact.uuid,
          scheduled_at: scheduledAt,
          priority,
          metadata: { probe: { sleep_ms: 150 } },
        }),
      );
    }
    expect(Date.now()).toBeLessThan(new Date(scheduledAt).getTime());
    for (const task of tasks) await untilStatus(tenant.api, task.uuid, ['completed'], 30_000);
    const calls = tasks.map((task) => ({ priority: task.priority, call: callsOf(task.uuid)[0] }));
    // A task with a lower number started before any later one (a higher number) ended.
    for (const better of calls) {
      for (const worse of calls) {
        if (better.priority < worse.priority) expect([better.priority, worse.priority, better.call.start <= worse.call.end]).toEqual([better.priority, worse.priority, true]);
      }
    }
    // (Which task starts first or last within one wave of the runner's concurrent claims is
    // a race between its handlers; the pairwise check above is what priority promises.)
  });
});

describe('the scheduler other folders use', () => {
  it('cancelForPoolItem cancels that pool item’s waiting tasks only, in one statement, and counts them', async () => {
    const [campaign] = await sql(
      kit,
      `insert into campaigns (uuid, tenant_uuid, created_at, updated_at, name, agent_uuid, task_type, task_data) values (gen_random_uuid(), ?, now(), now(), 'Pools', ?, 'follow_up', '{}') returning uuid`,
      [kit.tenant.uuid, agent],
    );
    const pools: string[] = [];
    for (const name of ['A', 'B']) {
      pools.push(
        (await sql(kit, `insert into pools (uuid, tenant_uuid, created_at, updated_at, campaign_uuid, name) values (gen_random_uuid(), ?, now(), now(), ?, ?) returning uuid`, [kit.tenant.uuid, campaign.uuid, name]))[0].uuid,
      );
    }
    const other = await createContact(kit.api);
    const mk = async (pool: string, contactUuid: string, status = 'scheduled') => {
      const task = await createTask(kit.api, { type: 'follow_up', agent_uuid: agent, contact_uuid: contactUuid, scheduled_at: inMs(3600_000) });
      await sql(kit, 'update tasks set pool_uuid = ?, status = ? where uuid = ?', [pool, status, task.uuid]);
      return task.uuid;
    };
    const waiting = [await mk(pools[0], contact.uuid), await mk(pools[0], contact.uuid, 'queued'), await mk(pools[0], contact.uuid, 'pending')];
    const done = await mk(pools[0], contact.uuid, 'completed');
    const otherPool = await mk(pools[1], contact.uuid);
    const otherContact = await mk(pools[0], other.uuid);

    const scheduler = createScheduler(kit.kernel.bus as never);
    const other_tenant = await kit.createTenant();
    // Another tenant with the same pool and contact ids cancels nothing of this one.
    const foreign = await runInContext({ tenant: other_tenant.tenant }, () => kit.kernel.orm.em.fork().transactional((em) => scheduler.cancelForPoolItem(em as never, pools[0], contact.uuid)));
    expect(foreign).toBe(0);
    const count = await runInContext({ tenant: kit.tenant }, () => kit.kernel.orm.em.fork().transactional((em) => scheduler.cancelForPoolItem(em as never, pools[0], contact.uuid)));
    expect(count).toBe(3);
    const statuses = await sql(kit, 'select uuid, status, finished_at from tasks where uuid = any(?::uuid[])', [`{${[...waiting, done, otherPool, otherContact].join(',')}}`]);
    const statusOf = new Map(statuses.map((row) => [row.uuid, row.status]));
    expect(waiting.map((uuid) => statusOf.get(uuid))).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect([statusOf.get(done), statusOf.get(otherPool), statusOf.get(otherContact)]).toEqual(['completed', 'scheduled', 'scheduled']);
  });

  it('create inserts many tasks, each with its due message, in the caller’s transaction', async () => {
    const scheduler = createScheduler(kit.kernel.bus as never);
    const soon = new Date(Date.now() + 1500);
    const later = new Date(Date.now() + 3600_000);
    const created = await runInContext({ tenant: kit.tenant }, () =>
      kit.kernel.orm.em.fork().transactional((em) =>
        scheduler.create(em as never, [
          { type: 'follow_up', agentUuid: agent, contactUuid: contact.uuid, scheduledAt: soon, priority: 2, autoQueue: true },
          { type: 'follow_up', agentUuid: agent, contactUuid: contact.uuid, scheduledAt: soon },
          { type: 'custom', agentUuid: agent, contactUuid: contact.uuid, scheduledAt: later, taskData: { a: 1 } },
        ]),
      ),
    );
    expect(created.map((task) => [task.status, task.priority, task.nextAttemptAt?.toISOString()])).toEqual([
      ['queued', 2, soon.toISOString()],
      ['scheduled', 5, soon.toISOString()],
      ['scheduled', 5, later.toISOString()],
    ]);
    const due = await sql(kit, `select payload->>'task_uuid' as uuid, due_at from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = any(?::text[])`, [
      `{${created.map((task) => task.uuid).join(',')}}`,
    ]);
    expect(new Map(due.map((row) => [row.uuid, new Date(row.due_at).toISOString()]))).toEqual(
      new Map(created.map((task) => [task.uuid, task.scheduledAt.toISOString()])),
    );
    for (const task of created.slice(0, 2)) expect((await untilStatus(kit.api, task.uuid, ['completed'])).attempts).toBe(1);
    expect((await readTask(kit.api, created[2].uuid)).status).toBe('scheduled');
  });
});
