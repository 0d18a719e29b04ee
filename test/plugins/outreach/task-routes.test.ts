import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as contactFixtures } from '../../../plugins/contacts/testing';
import { fixtures as outreachFixtures, unswept as outreachUnswept } from '../../../plugins/outreach/testing';
import { taskSecretColumn } from '../../../plugins/outreach/tasks/task-secret';
import {
  ISO,
  KERNEL_PLUGINS,
  UUID,
  createAgent,
  createContact,
  createTask,
  inMs,
  readTask,
  sql,
  taskProbe,
  type Json,
} from './task-test-helpers';

let kit: TestKernel;
let agent: string;
let contact: Json;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...KERNEL_PLUGINS, taskProbe] });
  agent = await createAgent(kit.api);
  contact = await createContact(kit.api, { phone_number: '+34600000001', email: 'ana@example.com' });
});
afterAll(() => kit?.stop());

const DAY = 24 * 3600_000;
/** A valid body: a follow_up for the test contact, a day ahead. */
const body = (extra: Json = {}): Json => ({ type: 'follow_up', agent_uuid: agent, contact_uuid: contact.uuid, scheduled_at: inMs(DAY), ...extra });

async function refused(send: Json, path = '/api/v1/tasks', method: 'post' | 'patch' = 'post'): Promise<Record<string, string[]>> {
  const res = await kit.api[method](path).send(send);
  if (res.status !== 422) throw new Error(`expected 422, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body)).toEqual(['message', 'errors']);
  return res.body.errors;
}

describe('POST /api/v1/tasks', () => {
  it('creates a task with the spec’s defaults and answers the spec’s message with the task', async () => {
    const scheduledAt = inMs(DAY);
    const res = await kit.api.post('/api/v1/tasks').send({ type: 'follow_up', agent_uuid: agent, contact_uuid: contact.uuid, scheduled_at: scheduledAt }).expect(201);
    expect(res.body).toEqual({ success: true, message: 'Task created successfully', data: expect.any(Object) });
    const task = res.body.data;
    expect(task).toEqual({
      uuid: expect.stringMatching(UUID),
      title: '',
      type: 'follow_up',
      agent_uuid: agent,
      contact_uuid: contact.uuid,
      campaign_uuid: null,
      pool_uuid: null,
      rule_uuid: null,
      scheduled_at: scheduledAt,
      description: '',
      timezone: null,
      priority: 5,
      expires_at: null,
      max_retry_attempts: 3,
      retry_interval_minutes: 60,
      retry_strategy: 'fixed',
      retry_schedule: null,
      task_data: {},
      metadata: {},
      auto_queue: false,
      status: 'scheduled',
      attempts: 0,
      last_attempt_at: null,
      next_attempt_at: scheduledAt,
      started_at: null,
      finished_at: null,
      last_error: null,
      result: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    await kit.api.get(`/api/v1/tasks/${task.uuid}`).expect(200, { data: task });
    // Its due message waits in the outbox for its time.
    const [due] = await sql(kit, `select due_at, dedupe_key from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = ?`, [task.uuid]);
    expect(new Date(due.due_at).toISOString()).toBe(scheduledAt);
    expect(due.dedupe_key).toBe(`task:${task.uuid}`);
  });

  it('takes every member of the spec’s body; auto_queue makes it queued', async () => {
    const expiresAt = inMs(2 * DAY);
    const task = await createTask(kit.api, {
      ...body(),
      title: 'Call back',
      description: 'About the renewal',
      timezone: 'Europe/Madrid',
      priority: 1,
      expires_at: expiresAt,
      max_retry_attempts: 2,
      retry_interval_minutes: 15,
      retry_strategy: 'custom',
      retry_schedule: [5, 30],
      task_data: { message_type: 'chatapp_template', template_uuid: '0190d5c2-0000-7000-8000-000000000001', variables: { name: 'Ana' } },
      metadata: { crm_id: 42 },
      auto_queue: true,
      // Read-only members a client sends back are ignored.
      uuid: '0190d5c2-0000-7000-8000-0000000000ff',
      status: 'completed',
      attempts: 9,
    });
    expect(task).toMatchObject({
      title: 'Call back',
      description: 'About the renewal',
      timezone: 'Europe/Madrid',
      priority: 1,
      expires_at: expiresAt,
      max_retry_attempts: 2,
      retry_interval_minutes: 15,
      retry_strategy: 'custom',
      retry_schedule: [5, 30],
      task_data: { message_type: 'chatapp_template', template_uuid: '0190d5c2-0000-7000-8000-000000000001', variables: { name: 'Ana' } },
      metadata: { crm_id: 42 },
      auto_queue: true,
      status: 'queued',
      attempts: 0,
    });
    expect(task.uuid).not.toBe('0190d5c2-0000-7000-8000-0000000000ff');
  });

  it('without scheduled_at the task is due at once', async () => {
    const before = Date.now();
    const { scheduled_at: _s, ...rest } = body();
    const task = await createTask(kit.api, { ...rest, scheduled_at: undefined });
    expect(new Date(task.scheduled_at).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(task.scheduled_at).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('refuses what the schema refuses, with dotted paths', async () => {
    expect(await refused({ agent_uuid: agent, contact_uuid: contact.uuid })).toEqual({ type: ['is required'] });
    expect(await refused(body({ type: 'fax' }))).toEqual({
      type: ['must be one of: make_call, send_message, send_email, follow_up, appointment, survey, notification, webhook, custom'],
    });
    const errors = await refused(body({ priority: 0, max_retry_attempts: -1, retry_interval_minutes: 1.5, retry_strategy: 'random', scheduled_at: 'tomorrow', auto_queue: 'yes', task_data: [], metadata: 'x', colour: 'red' }));
    expect(Object.keys(errors).sort()).toEqual(['auto_queue', 'colour', 'max_retry_attempts', 'metadata', 'priority', 'retry_interval_minutes', 'retry_strategy', 'scheduled_at', 'task_data'].sort());
    expect(errors.colour).toEqual(['is not allowed']);
    expect(Object.keys(await refused(body({ priority: 11 })))).toEqual(['priority']);
    expect(Object.keys(await refused(body({ agent_uuid: undefined })))).toEqual(['agent_uuid']);
  });

  it('agent_uuid must be an agent of this tenant', async () => {
    const other = await kit.createTenant();
    const theirs = await createAgent(other.api);
    expect(await refused(body({ agent_uuid: theirs }))).toEqual({ agent_uuid: ['is not an agent of this tenant'] });
  });

  it('scheduled_at must be in the future; expires_at after it', async () => {
    expect(await refused(body({ scheduled_at: inMs(-1000) }))).toEqual({ scheduled_at: ['must be in the future'] });
    const at = inMs(DAY);
    expect(await refused(body({ scheduled_at: at, expires_at: at }))).toEqual({ expires_at: ['must be after scheduled_at'] });
    expect(await refused(body({ scheduled_at: at, expires_at: inMs(DAY - 60_000) }))).toEqual({ expires_at: ['must be after scheduled_at'] });
  });

  it('contact_uuid xor contact', async () => {
    expect(await refused(body({ contact_uuid: undefined }))).toEqual({ contact: ['is required when contact_uuid is absent'] });
    expect(await refused(body({ contact_uuid: null, contact: null }))).toEqual({ contact: ['is required when contact_uuid is absent'] });
    expect(await refused(body({ contact: { phone_number: '+34600000009' } }))).toEqual({ contact: ['cannot be given with contact_uuid: give one of them'] });
    expect(await refused(body({ contact_uuid: undefined, contact: { name: 'Nobody' } }))).toEqual({ contact: ['needs a phone_number or an email'] });
  });

  it('contact_uuid must be a contact of this tenant', async () => {
    const other = await kit.createTenant();
    const theirs = await createContact(other.api);
    expect(await refused(body({ contact_uuid: theirs.uuid }))).toEqual({ contact_uuid: ['is not a contact of this tenant'] });
  });

  it('contact finds the tenant’s contact by phone first, then email, else creates one', async () => {
    const byPhone = await createTask(kit.api, body({ contact_uuid: undefined, contact: { phone_number: '+34 600 000 001', email: 'someone-else@example.com' } }));
    expect(byPhone.contact_uuid).toBe(contact.uuid);
    const byEmail = await createTask(kit.api, body({ contact_uuid: undefined, contact: { email: 'ana@example.com' } }));
    expect(byEmail.contact_uuid).toBe(contact.uuid);
    const created = await createTask(kit.api, body({ contact_uuid: undefined, contact: { phone_number: '+34600000077', name: 'Bea', timezone: 'Europe/Madrid' } }));
    expect(created.contact_uuid).not.toBe(contact.uuid);
    const res = await kit.api.get(`/api/v1/contacts/${created.contact_uuid}`).expect(200);
    expect(res.body.data).toMatchObject({ phone_number: '+34600000077', name: 'Bea', timezone: 'Europe/Madrid' });
    // Found again the next time.
    expect((await createTask(kit.api, body({ contact_uuid: undefined, contact: { phone_number: '+34600000077' } }))).contact_uuid).toBe(created.contact_uuid);
  });

  it('a contact the contacts plugin refuses comes back under contact.*, and nothing is created', async () => {
    const before = await sql(kit, 'select count(*)::int as n from tasks');
    const errors = await refused(body({ contact_uuid: undefined, contact: { phone_number: 'not a phone' } }));
    expect(Object.keys(errors)).toEqual(['contact.phone_number']);
    expect(await sql(kit, 'select count(*)::int as n from tasks')).toEqual(before);
  });

  it('campaign_uuid and rule_uuid must be this tenant’s', async () => {
    const errors = await refused(body({ campaign_uuid: '0190d5c2-0000-7000-8000-000000000002', rule_uuid: '0190d5c2-0000-7000-8000-000000000003' }));
    expect(errors).toEqual({ campaign_uuid: ['is not a campaign of this tenant'], rule_uuid: ['is not a rule of this tenant'] });
    const [rule] = await sql(
      kit,
      `insert into outreach_rules (uuid, tenant_uuid, created_at, updated_at, name, weekdays) values (gen_random_uuid(), ?, now(), now(), 'Any', '[1,2,3,4,5,6,7]') returning uuid`,
      [kit.tenant.uuid],
    );
    const [campaign] = await sql(
      kit,
      `insert into campaigns (uuid, tenant_uuid, created_at, updated_at, name, agent_uuid, task_type, task_data) values (gen_random_uuid(), ?, now(), now(), 'Spring', ?, 'follow_up', '{}') returning uuid`,
      [kit.tenant.uuid, agent],
    );
    const task = await createTask(kit.api, body({ campaign_uuid: campaign.uuid, rule_uuid: rule.uuid }));
    expect(task).toMatchObject({ campaign_uuid: campaign.uuid, rule_uuid: rule.uuid, pool_uuid: null });
  });

  it('timezone must be an IANA zone', async () => {
    expect(await refused(body({ timezone: '+02:00' }))).toEqual({ timezone: ['must be an IANA time zone such as Europe/Madrid'] });
  });

  it('retry settings: custom needs a schedule of at most max_retry_attempts entries; others take none', async () => {
    expect(await refused(body({ retry_strategy: 'custom' }))).toEqual({ retry_schedule: ['is required by retry_strategy custom (minutes before each retry)'] });
    expect(await refused(body({ retry_strategy: 'custom', retry_schedule: [1, 2, 3, 4] }))).toEqual({ retry_schedule: ['has 4 entries but max_retry_attempts is 3'] });
    expect(await refused(body({ retry_strategy: 'custom', max_retry_attempts: 1, retry_schedule: [1, 2] }))).toEqual({ retry_schedule: ['has 2 entries but max_retry_attempts is 1'] });
    expect(await refused(body({ retry_schedule: [5] }))).toEqual({ retry_schedule: ['is only taken with retry_strategy custom (this task\'s is fixed)'] });
    expect(Object.keys(await refused(body({ retry_strategy: 'custom', retry_schedule: [] })))).toEqual(['retry_schedule']);
    expect(Object.keys(await refused(body({ retry_strategy: 'custom', retry_schedule: [-1] })))).toContain('retry_schedule.0');
    const exponential = await createTask(kit.api, body({ retry_strategy: 'exponential', retry_interval_minutes: 0, max_retry_attempts: 0 }));
    expect(exponential).toMatchObject({ retry_strategy: 'exponential', retry_interval_minutes: 0, max_retry_attempts: 0, retry_schedule: null });
  });

  it('task_data: a chatapp template needs template_uuid; template_uuid needs the chatapp template type', async () => {
    expect(await refused(body({ task_data: { message_type: 'chatapp_template' } }))).toEqual({ 'task_data.template_uuid': ['is required when message_type is chatapp_template'] });
    expect(await refused(body({ task_data: { message_type: 'chatapp_template', template_uuid: 'abc' } }))).toEqual({ 'task_data.template_uuid': ['must be a valid uuid'] });
    expect(await refused(body({ task_data: { message_type: 'text', template_uuid: '0190d5c2-0000-7000-8000-000000000001' } }))).toEqual({
      'task_data.message_type': ['must be chatapp_template when template_uuid is given'],
    });
    // For calls it may be empty or omitted.
    expect((await createTask(kit.api, body({ type: 'make_call', task_data: undefined }))).task_data).toEqual({});
  });

  it('webhook tasks need an http(s) task_data.url; the secret is stored sealed, apart from the data, and never shown', async () => {
    expect(await refused(body({ type: 'webhook' }))).toEqual({ 'task_data.url': ['is required for webhook tasks'] });
    expect(await refused(body({ type: 'webhook', task_data: { url: 'ftp://example.com/x' } }))).toEqual({ 'task_data.url': ['must be an http or https URL'] });
    expect(await refused(body({ type: 'webhook', task_data: { url: 'not a url' } }))).toEqual({ 'task_data.url': ['must be an http or https URL'] });
    expect(await refused(body({ type: 'webhook', task_data: { url: 'https://example.com/x', secret: 42 } }))).toEqual({ 'task_data.secret': ['must be a string of 1 to 1000 characters'] });
    const task = await createTask(kit.api, body({ type: 'webhook', task_data: { url: 'https://example.com/hook', secret: 's3cret', has_secret: false } }));
    expect(task.task_data).toEqual({ url: 'https://example.com/hook', has_secret: true });
    expect(JSON.stringify((await kit.api.get(`/api/v1/tasks/${task.uuid}`)).body)).not.toContain('s3cret');
    const [row] = await sql(kit, 'select task_data, webhook_secret, row_to_json(tasks)::text as whole from tasks where uuid = ?', [task.uuid]);
    expect(row.task_data).toEqual({ url: 'https://example.com/hook' });
    expect(row.webhook_secret).toMatch(/^sb1:/);
    expect(row.whole).not.toContain('s3cret');
    expect(kit.kernel.secrets.decrypt(row.webhook_secret, taskSecretColumn.context(kit.tenant.uuid))).toBe('s3cret');
  });

  it('a type no installed plugin runs is refused, naming what is missing', async () => {
    expect(await refused(body({ type: 'send_message' }))).toEqual({ type: ['send_message tasks need a channels plugin; none is installed'] });
    expect(await refused(body({ type: 'send_email' }))).toEqual({ type: ['send_email tasks need an email channel plugin; none is installed'] });
    expect(await refused(body({ type: 'survey' }))).toEqual({ type: ['survey tasks need a surveys plugin; none is installed'] });
    // make_call is run by this file's probe plugin; built-in types need nothing.
    for (const type of ['make_call', 'follow_up', 'custom']) expect((await createTask(kit.api, body({ type }))).type).toBe(type);
  });

  it('reports every problem at once', async () => {
    const errors = await refused({ type: 'notification', agent_uuid: '0190d5c2-0000-7000-8000-000000000004', scheduled_at: inMs(-5000), timezone: 'Nowhere', retry_strategy: 'custom' });
    expect(Object.keys(errors).sort()).toEqual(['agent_uuid', 'contact', 'retry_schedule', 'scheduled_at', 'timezone', 'type']);
    expect(errors.type).toEqual(['notification tasks need a notifications plugin; none is installed']);
  });

  it('a missing make_call executor is refused: without the probe plugin', async () => {
    const bare = await startTestKernel({ plugins: KERNEL_PLUGINS });
    try {
      const bareAgent = await createAgent(bare.api);
      const res = await bare.api.post('/api/v1/tasks').send({ type: 'make_call', agent_uuid: bareAgent, contact: { phone_number: '+34600000002' }, scheduled_at: inMs(DAY) }).expect(422);
      expect(res.body.errors).toEqual({ type: ['make_call tasks need a calls plugin; none is installed'] });
    } finally {
      await bare.stop();
    }
  });
});

describe('GET /api/v1/tasks', () => {
  it('lists by scheduled_at with the filters of decisions.md, paginated', async () => {
    const tenant = await kit.createTenant();
    const [a1, a2] = [await createAgent(tenant.api), await createAgent(tenant.api)];
    const [c1, c2] = [(await createContact(tenant.api)).uuid, (await createContact(tenant.api)).uuid];
    const make = (agentUuid: string, contactUuid: string, hours: number) =>
      createTask(tenant.api, { type: 'custom', agent_uuid: agentUuid, contact_uuid: contactUuid, scheduled_at: inMs(hours * 3600_000) });
    const late = await make(a1, c1, 30);
    const early = await make(a2, c1, 10);
    const middle = await make(a1, c2, 20);
    await tenant.api.post(`/api/v1/tasks/${middle.uuid}/cancel`).expect(200);
    const list = async (query: string) => (await tenant.api.get(`/api/v1/tasks${query}`).expect(200)).body;

    const all = await list('');
    expect(all.success).toBe(true);
    expect(all.data.items.map((task: Json) => task.uuid)).toEqual([early.uuid, middle.uuid, late.uuid]);
    expect(all.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 3, last_page: 1, from: 1, to: 3, has_more: false });
    expect((await list(`?agent_uuid=${a1}`)).data.items.map((task: Json) => task.uuid)).toEqual([middle.uuid, late.uuid]);
    expect((await list(`?contact_uuid=${c1}`)).data.items.map((task: Json) => task.uuid)).toEqual([early.uuid, late.uuid]);
    expect((await list('?status=cancelled')).data.items.map((task: Json) => task.uuid)).toEqual([middle.uuid]);
    expect((await list(`?status=scheduled&agent_uuid=${a1}`)).data.items.map((task: Json) => task.uuid)).toEqual([late.uuid]);
    const page2 = await list('?per_page=2&page=2');
    expect(page2.data.items.map((task: Json) => task.uuid)).toEqual([late.uuid]);
    expect(page2.data.pagination).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3, has_more: false });
    expect((await tenant.api.get('/api/v1/tasks?status=done').expect(422)).body.errors).toHaveProperty('status');
  });

  it('filters by campaign', async () => {
    const [campaign] = await sql(
      kit,
      `insert into campaigns (uuid, tenant_uuid, created_at, updated_at, name, agent_uuid, task_type, task_data) values (gen_random_uuid(), ?, now(), now(), 'Filter', ?, 'follow_up', '{}') returning uuid`,
      [kit.tenant.uuid, agent],
    );
    const task = await createTask(kit.api, body({ campaign_uuid: campaign.uuid }));
    const res = await kit.api.get(`/api/v1/tasks?campaign_uuid=${campaign.uuid}`).expect(200);
    expect(res.body.data.items.map((item: Json) => item.uuid)).toEqual([task.uuid]);
  });

  it('GET one: 404 with the envelope for an unknown task', async () => {
    await kit.api.get('/api/v1/tasks/0190d5c2-0000-7000-8000-000000000009').expect(404, { success: false, message: 'Task not found', data: [] });
  });
});

describe('PATCH /api/v1/tasks/{uuid}', () => {
  it('changes what a waiting task lets change, and re-arms its due message', async () => {
    const task = await createTask(kit.api, body({ task_data: { note: 'x' } }));
    const scheduledAt = inMs(2 * DAY);
    const expiresAt = inMs(3 * DAY);
    const res = await kit.api
      .patch(`/api/v1/tasks/${task.uuid}`)
      .send({
        title: 'Renamed',
        description: 'New text',
        scheduled_at: scheduledAt,
        priority: 9,
        expires_at: expiresAt,
        timezone: 'Asia/Tokyo',
        max_retry_attempts: 5,
        retry_interval_minutes: 10,
        retry_strategy: 'exponential',
        task_data: { note: 'y' },
        metadata: { tag: 'b' },
      })
      .expect(200);
    expect(res.body.data).toMatchObject({
      title: 'Renamed',
      description: 'New text',
      scheduled_at: scheduledAt,
      next_attempt_at: scheduledAt,
      priority: 9,
      expires_at: expiresAt,
      timezone: 'Asia/Tokyo',
      max_retry_attempts: 5,
      retry_interval_minutes: 10,
      retry_strategy: 'exponential',
      task_data: { note: 'y' },
      metadata: { tag: 'b' },
      status: 'scheduled',
    });
    const due = await sql(kit, `select due_at from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = ?`, [task.uuid]);
    expect(due.map((row) => new Date(row.due_at).toISOString())).toEqual([scheduledAt]);
  });

  it('takes back what it read; members fixed at creation only with their value', async () => {
    const task = await createTask(kit.api, body({ retry_strategy: 'custom', retry_schedule: [1, 2] }));
    const back = await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ ...task, title: 'Same otherwise' }).expect(200);
    expect(back.body.data).toMatchObject({ ...task, title: 'Same otherwise', updated_at: expect.any(String) });
    const errors = await refused({ type: 'custom', agent_uuid: '0190d5c2-0000-7000-8000-000000000005', auto_queue: true }, `/api/v1/tasks/${task.uuid}`, 'patch');
    expect(errors).toEqual({
      type: ['cannot be changed (create a new task instead)'],
      agent_uuid: ['cannot be changed (create a new task instead)'],
      auto_queue: ['cannot be changed (create a new task instead)'],
    });
    // Away from custom, the schedule goes.
    const fixed = await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ retry_strategy: 'fixed' }).expect(200);
    expect(fixed.body.data).toMatchObject({ retry_strategy: 'fixed', retry_schedule: null });
  });

  it('checks the resulting task: future times, expiry after the due time, retry settings, task_data', async () => {
    const task = await createTask(kit.api, body({ expires_at: inMs(2 * DAY) }));
    const at = `/api/v1/tasks/${task.uuid}`;
    expect(await refused({ scheduled_at: inMs(-1000) }, at, 'patch')).toEqual({ scheduled_at: ['must be in the future'] });
    expect(await refused({ scheduled_at: inMs(3 * DAY) }, at, 'patch')).toEqual({ scheduled_at: ['must be before expires_at'] });
    expect(await refused({ expires_at: inMs(DAY / 2) }, at, 'patch')).toEqual({ expires_at: ['must be after scheduled_at'] });
    expect(await refused({ retry_strategy: 'custom' }, at, 'patch')).toEqual({ retry_schedule: ['is required by retry_strategy custom (minutes before each retry)'] });
    expect(await refused({ task_data: { message_type: 'chatapp_template' } }, at, 'patch')).toEqual({ 'task_data.template_uuid': ['is required when message_type is chatapp_template'] });
    expect(await refused({ priority: 0 }, at, 'patch')).toHaveProperty('priority');
    // Moving both together is fine; expires_at null removes it.
    await kit.api.patch(at).send({ scheduled_at: inMs(3 * DAY), expires_at: inMs(4 * DAY) }).expect(200);
    expect((await kit.api.patch(at).send({ expires_at: null }).expect(200)).body.data.expires_at).toBeNull();
  });

  it('keeps a webhook secret unless a new one (or null) is sent', async () => {
    const task = await createTask(kit.api, body({ type: 'webhook', task_data: { url: 'https://example.com/a', secret: 'one' } }));
    const stored = async (): Promise<{ sealed: string | null; data: Json }> => {
      const [row] = await sql(kit, 'select task_data, webhook_secret from tasks where uuid = ?', [task.uuid]);
      return { sealed: row.webhook_secret, data: row.task_data };
    };
    const open = (sealed: string | null) => sealed && kit.kernel.secrets.decrypt(sealed, taskSecretColumn.context(kit.tenant.uuid));
    const first = await stored();
    expect(open(first.sealed)).toBe('one');
    // Sent back as read (has_secret), or no task_data at all: the very value stored is kept.
    const kept = await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ task_data: { url: 'https://example.com/b', has_secret: true } }).expect(200);
    expect(kept.body.data.task_data).toEqual({ url: 'https://example.com/b', has_secret: true });
    expect(await stored()).toEqual({ sealed: first.sealed, data: { url: 'https://example.com/b' } });
    await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ title: 'Renamed' }).expect(200);
    expect((await stored()).sealed).toBe(first.sealed);
    await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ task_data: { url: 'https://example.com/b', secret: 'two' } }).expect(200);
    const replaced = await stored();
    expect(open(replaced.sealed)).toBe('two');
    expect(replaced.data).toEqual({ url: 'https://example.com/b' });
    const res = await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ task_data: { url: 'https://example.com/b', secret: null } }).expect(200);
    expect(await stored()).toEqual({ sealed: null, data: { url: 'https://example.com/b' } });
    expect(res.body.data.task_data).toEqual({ url: 'https://example.com/b' });
    expect(await refused({ task_data: { secret: 'x' } }, `/api/v1/tasks/${task.uuid}`, 'patch')).toEqual({ 'task_data.url': ['is required for webhook tasks'] });
  });

  it('409 once the task no longer waits; 404 for an unknown one', async () => {
    const task = await createTask(kit.api, body());
    for (const [status, message] of [
      ['in_progress', 'Task has already started'],
      ['completed', 'Task has already started'],
      ['failed', 'Task has already started'],
      ['expired', 'Task has expired'],
      ['cancelled', 'Task is cancelled'],
    ]) {
      await sql(kit, 'update tasks set status = ? where uuid = ?', [status, task.uuid]);
      await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ title: 'x' }).expect(409, { success: false, message, data: [] });
    }
    for (const status of ['pending', 'queued']) {
      await sql(kit, 'update tasks set status = ? where uuid = ?', [status, task.uuid]);
      await kit.api.patch(`/api/v1/tasks/${task.uuid}`).send({ title: status }).expect(200);
    }
    await kit.api.patch('/api/v1/tasks/0190d5c2-0000-7000-8000-000000000009').send({ title: 'x' }).expect(404, { success: false, message: 'Task not found', data: [] });
  });
});

describe('POST /api/v1/tasks/{uuid}/cancel', () => {
  it('cancels a waiting task; again: unchanged; a started or finished one: 409', async () => {
    const task = await createTask(kit.api, body());
    const res = await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200);
    expect(res.body.data).toMatchObject({ status: 'cancelled', next_attempt_at: null, finished_at: expect.stringMatching(ISO) });
    const again = await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200);
    expect(again.body.data).toEqual(res.body.data);

    const done = await createTask(kit.api, body());
    for (const [status, message] of [
      ['in_progress', 'Task has already started'],
      ['completed', 'Task has already started'],
      ['failed', 'Task has already started'],
      ['expired', 'Task has expired'],
    ]) {
      await sql(kit, 'update tasks set status = ? where uuid = ?', [status, done.uuid]);
      await kit.api.post(`/api/v1/tasks/${done.uuid}/cancel`).expect(409, { success: false, message, data: [] });
    }
    await kit.api.post('/api/v1/tasks/0190d5c2-0000-7000-8000-000000000009/cancel').expect(404);
  });

  it('a queued task can be cancelled too', async () => {
    const task = await createTask(kit.api, body({ auto_queue: true }));
    expect((await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200)).body.data.status).toBe('cancelled');
    expect((await readTask(kit.api, task.uuid)).status).toBe('cancelled');
  });
});

describe('tenant isolation', () => {
  it('another tenant’s task ids answer 404 on every task route (cross-tenant sweep)', async () => {
    const routes = kit.kernel.registry.list().filter((route) => route.path.startsWith('/api/v1/tasks/'));
    expect(routes.map((route) => `${route.method} ${route.path}`).sort()).toEqual(['GET /api/v1/tasks/:uuid', 'PATCH /api/v1/tasks/:uuid', 'POST /api/v1/tasks/:uuid/cancel']);
    const results = await sweepCrossTenant(kit, { ...agentFixtures, ...contactFixtures, ...outreachFixtures }, { only: (route) => routes.includes(route), unswept: outreachUnswept });
    expect(results.filter((result) => !result.member)).toEqual(routes.map((route) => ({ route: `${route.method} ${route.path}` })));
    // PATCH's agent_uuid and contact_uuid refuse another tenant's (its campaign_uuid and rule_uuid cannot change at all: listed as skipped).
    expect(results.filter((result) => result.member && !result.skipped)).toEqual([
      { route: 'PATCH /api/v1/tasks/:uuid', member: 'agent_uuid' },
      { route: 'PATCH /api/v1/tasks/:uuid', member: 'contact_uuid' },
    ]);
  });

  it('lists only the tenant’s own tasks', async () => {
    const tenant = await kit.createTenant();
    await createTask(tenant.api, { type: 'custom', agent_uuid: await createAgent(tenant.api), contact: { email: 'own@example.com' } });
    const res = await tenant.api.get('/api/v1/tasks').expect(200);
    expect(res.body.data.items).toHaveLength(1);
    expect(res.body.data.items[0].contact_uuid).not.toBe(contact.uuid);
  });
});

describe('the OpenAPI document', () => {
  it('describes the task routes with their statuses and the Task component', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const operation = (path: string, method: string) => doc.paths[path]?.[method];
    expect(Object.keys(operation('/api/v1/tasks', 'post').responses)).toEqual(expect.arrayContaining(['201', '422']));
    expect(operation('/api/v1/tasks', 'get').parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'per_page', 'status', 'agent_uuid', 'contact_uuid', 'campaign_uuid']),
    );
    expect(Object.keys(operation('/api/v1/tasks/{uuid}', 'get').responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(Object.keys(operation('/api/v1/tasks/{uuid}', 'patch').responses)).toEqual(expect.arrayContaining(['200', '404', '409', '422']));
    expect(Object.keys(operation('/api/v1/tasks/{uuid}/cancel', 'post').responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    expect(doc.components.schemas.Task.properties.retry_strategy.enum).toEqual(['fixed', 'exponential', 'custom']);
  });
});
