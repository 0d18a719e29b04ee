import type { TestKernel } from '../../../core/testing';
import { campaignSecretColumn } from '../../../plugins/outreach/campaigns/campaign-secret';
import {
  HELD_TASK_TYPE,
  TEST_TASK_TYPE,
  WAITING,
  activate,
  addToPool,
  createAgent,
  createCampaign,
  createClosedRule,
  createContacts,
  createPool,
  eventually,
  holdTasks,
  readCampaign,
  releaseHeld,
  startOutreachKit,
  tasksOf,
  transition,
  type Json,
  type TaskRow,
} from './outreach-test-kit';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CAMPAIGN_NOT_FOUND = { success: false, message: 'Campaign not found', data: [] };

let kit: TestKernel;
beforeAll(async () => {
  kit = await startOutreachKit();
});
afterAll(async () => {
  releaseHeld();
  await kit?.stop();
});

const unfinished = (tasks: TaskRow[]) => tasks.filter((task) => [...WAITING, 'in_progress'].includes(task.status));
const sortedPairs = (tasks: TaskRow[]) => tasks.map((task) => `${task.pool_uuid}/${task.contact_uuid}`).sort();

describe('campaigns: create, read, list, change, delete', () => {
  it('creates a draft campaign with the defaults, reads it and lists it by status and agent', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    const rules = [
      (await tenant.api.post('/api/v1/rules').send({ name: 'B' }).expect(201)).body.data.uuid,
      (await tenant.api.post('/api/v1/rules').send({ name: 'A' }).expect(201)).body.data.uuid,
    ];
    const res = await tenant.api.post('/api/v1/campaigns').send({ name: ' Renewals ', agent_uuid: agent, task_type: TEST_TASK_TYPE, rule_uuids: rules }).expect(201);
    const campaign = res.body.data;
    expect(campaign).toEqual({
      uuid: expect.any(String),
      name: 'Renewals',
      description: '',
      agent_uuid: agent,
      status: 'draft',
      task_type: TEST_TASK_TYPE,
      task_data: {},
      priority: 5,
      rule_uuids: rules,
      pool_count: 0,
      contact_count: 0,
      last_error: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    await tenant.api.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200, { data: campaign });

    const pool = await createPool(tenant.api, campaign.uuid);
    await createPool(tenant.api, campaign.uuid, 'Empty');
    await addToPool(tenant.api, pool.uuid, await createContacts(tenant.api, 2));
    expect(await readCampaign(tenant.api, campaign.uuid)).toMatchObject({ pool_count: 2, contact_count: 2 });

    const other = await createCampaign(tenant.api, { name: 'Other', description: 'x', task_data: { script: 'hi' }, priority: 9 });
    expect(other).toMatchObject({ description: 'x', task_data: { script: 'hi' }, priority: 9 });
    await activate(tenant.api, other.uuid);
    const all = await tenant.api.get('/api/v1/campaigns').expect(200);
    expect(all.body.data.items.map((c: Json) => c.uuid)).toEqual([other.uuid, campaign.uuid]);
    const drafts = await tenant.api.get('/api/v1/campaigns?status=draft').expect(200);
    expect(drafts.body.data.items.map((c: Json) => c.uuid)).toEqual([campaign.uuid]);
    const byAgent = await tenant.api.get(`/api/v1/campaigns?agent_uuid=${agent}`).expect(200);
    expect(byAgent.body.data.items.map((c: Json) => c.uuid)).toEqual([campaign.uuid]);
    await tenant.api.get('/api/v1/campaigns?status=running').expect(422);
  });

  it('refuses another tenant’s agent and rules, and a task type no executor runs, at their paths', async () => {
    const stranger = await kit.createTenant();
    const foreignAgent = await createAgent(stranger.api);
    const foreignRule = (await stranger.api.post('/api/v1/rules').send({ name: 'Theirs' }).expect(201)).body.data.uuid;
    const ownRule = (await kit.api.post('/api/v1/rules').send({ name: 'Ours' }).expect(201)).body.data.uuid;

    const res = await kit.api
      .post('/api/v1/campaigns')
      .send({ name: 'Bad', agent_uuid: foreignAgent, task_type: 'make_call', rule_uuids: [ownRule, foreignRule] })
      .expect(422);
    expect(res.body.errors).toEqual({
      agent_uuid: ['is not an agent of this tenant'],
      task_type: ['make_call tasks need a calls plugin; none is installed'],
      'rule_uuids.1': ['is not a rule of this tenant'],
    });
    const agent = await createAgent(kit.api);
    const invalid = await kit.api.post('/api/v1/campaigns').send({ name: 'Bad', agent_uuid: agent, task_type: 'teleport', priority: 11 }).expect(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['priority', 'task_type']);
    const missing = await kit.api.post('/api/v1/campaigns').send({}).expect(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['agent_uuid', 'name', 'task_type']);
    const repeated = await kit.api.post('/api/v1/campaigns').send({ name: 'Bad', agent_uuid: agent, task_type: TEST_TASK_TYPE, rule_uuids: [ownRule, ownRule] }).expect(422);
    expect(Object.keys(repeated.body.errors)).toEqual(['rule_uuids']);
  });

  it('checks task_data by the rules of its task type, and never shows a webhook secret', async () => {
    const agent = await createAgent(kit.api);
    const refused = await kit.api.post('/api/v1/campaigns').send({ name: 'Hook', agent_uuid: agent, task_type: 'webhook', task_data: { secret: '' } }).expect(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['task_data.secret', 'task_data.url']);
    const template = await kit.api.post('/api/v1/campaigns').send({ name: 'T', agent_uuid: agent, task_type: TEST_TASK_TYPE, task_data: { message_type: 'chatapp_template' } }).expect(422);
    expect(Object.keys(template.body.errors)).toEqual(['task_data.template_uuid']);

    const hook = await createCampaign(kit.api, { task_type: 'webhook', task_data: { url: 'https://example.com/hook', secret: 's3cret' } });
    expect(hook.task_data).toEqual({ url: 'https://example.com/hook', has_secret: true });
    // Sent back as read, the secret stays; switching the type checks the data it keeps.
    const same = (await kit.api.patch(`/api/v1/campaigns/${hook.uuid}`).send(hook).expect(200)).body.data;
    expect(same.task_data).toEqual({ url: 'https://example.com/hook', has_secret: true });
    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select task_data, webhook_secret from campaigns where uuid = ?', [hook.uuid]);
    expect(rows[0].task_data).toEqual({ url: 'https://example.com/hook' });
    expect(kit.kernel.secrets.decrypt(rows[0].webhook_secret, campaignSecretColumn.context(kit.tenant.uuid))).toBe('s3cret');
    await kit.api.patch(`/api/v1/campaigns/${hook.uuid}`).send({ task_type: TEST_TASK_TYPE }).expect(200);
    const back = await kit.api.patch(`/api/v1/campaigns/${hook.uuid}`).send({ task_type: 'webhook', task_data: {} }).expect(422);
    expect(Object.keys(back.body.errors)).toEqual(['task_data.url']);
  });

  it('changes the members given, replaces the rules in their order, and ignores the status it read', async () => {
    const campaign = await createCampaign(kit.api);
    const [a, b] = [await createClosedRule(kit.api), await createClosedRule(kit.api)];
    const agent = await createAgent(kit.api);
    const changed = (
      await kit.api
        .patch(`/api/v1/campaigns/${campaign.uuid}`)
        .send({ ...campaign, status: 'completed', name: 'Wave 2', agent_uuid: agent, priority: 8, task_data: { k: 1 }, rule_uuids: [b.uuid, a.uuid] })
        .expect(200)
    ).body.data;
    expect(changed).toMatchObject({ name: 'Wave 2', agent_uuid: agent, priority: 8, task_data: { k: 1 }, rule_uuids: [b.uuid, a.uuid], status: 'draft' });
    expect((await kit.api.patch(`/api/v1/campaigns/${campaign.uuid}`).send({ rule_uuids: [a.uuid] }).expect(200)).body.data.rule_uuids).toEqual([a.uuid]);
    const refused = await kit.api.patch(`/api/v1/campaigns/${campaign.uuid}`).send({ task_type: 'make_call', name: ' ' }).expect(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['name', 'task_type']);
    expect(await readCampaign(kit.api, campaign.uuid)).toMatchObject({ name: 'Wave 2', task_type: TEST_TASK_TYPE });
  });

  it('deletes a draft, paused or completed campaign with its pools, and refuses a running one with 409', async () => {
    const campaign = await createCampaign(kit.api);
    const pool = await createPool(kit.api, campaign.uuid);
    await activate(kit.api, campaign.uuid);
    const refused = await kit.api.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(409);
    expect(refused.body).toEqual({ success: false, message: expect.stringContaining('Campaign is active'), data: [] });
    await transition(kit.api, campaign.uuid, 'pause');
    await kit.api.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(200, { success: true, message: 'Campaign deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/campaigns/${campaign.uuid}`).expect(404, CAMPAIGN_NOT_FOUND);
    await kit.api.get(`/api/v1/pools/${pool.uuid}`).expect(404);
    await kit.api.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(404, CAMPAIGN_NOT_FOUND);

    const draft = await createCampaign(kit.api);
    await kit.api.delete(`/api/v1/campaigns/${draft.uuid}`).expect(200);
  });
});

describe('campaign transitions', () => {
  const refused = async (uuid: string, action: 'activate' | 'pause' | 'complete', status: string) => {
    const res = await transition(kit.api, uuid, action, 409);
    expect(res).toEqual({ success: false, message: expect.stringContaining(`Campaign is ${status}:`), data: [] });
  };

  it('moves draft -> importing -> active <-> paused, active -> completed, and refuses every other move naming the status', async () => {
    const campaign = await createCampaign(kit.api);
    await refused(campaign.uuid, 'pause', 'draft');
    await refused(campaign.uuid, 'complete', 'draft');

    expect((await activate(kit.api, campaign.uuid)).status).toBe('active');
    await refused(campaign.uuid, 'activate', 'active');
    expect((await transition(kit.api, campaign.uuid, 'pause')).data.status).toBe('paused');
    await refused(campaign.uuid, 'pause', 'paused');
    await refused(campaign.uuid, 'complete', 'paused');
    expect((await transition(kit.api, campaign.uuid, 'activate')).data.status).toBe('active');
    // No task is waiting or running: completing ends it at once.
    expect((await transition(kit.api, campaign.uuid, 'complete')).data.status).toBe('completed');
    for (const action of ['activate', 'pause', 'complete'] as const) await refused(campaign.uuid, action, 'completed');
    await transition(kit.api, '00000000-0000-7000-8000-000000000000', 'activate', 404);
  });

  it('completing with tasks left is in_process, refuses pause and activate, and a second complete cancels what still waits', async () => {
    const rule = await createClosedRule(kit.api);
    const campaign = await createCampaign(kit.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(kit.api, campaign.uuid);
    await addToPool(kit.api, pool.uuid, await createContacts(kit.api, 2));
    await activate(kit.api, campaign.uuid);
    expect((await transition(kit.api, campaign.uuid, 'complete')).data.status).toBe('in_process');
    await refused(campaign.uuid, 'pause', 'in_process');
    await refused(campaign.uuid, 'activate', 'in_process');

    // In process: new contacts get no task.
    expect(await addToPool(kit.api, pool.uuid, await createContacts(kit.api, 1))).toEqual({ added: 1, tasks_created: 0 });
    expect((await tasksOf(kit, kit.tenant.uuid, { campaign_uuid: campaign.uuid })).map((t) => t.status)).toEqual(['scheduled', 'scheduled']);

    expect((await transition(kit.api, campaign.uuid, 'complete')).data.status).toBe('completed');
    expect((await tasksOf(kit, kit.tenant.uuid, { campaign_uuid: campaign.uuid })).map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('an in_process campaign completes by itself when its last task settles', async () => {
    holdTasks();
    const campaign = await createCampaign(kit.api, { task_type: HELD_TASK_TYPE });
    const pool = await createPool(kit.api, campaign.uuid);
    await addToPool(kit.api, pool.uuid, await createContacts(kit.api, 1));
    await activate(kit.api, campaign.uuid);
    // The task runs now (no rule) and is held by its executor.
    expect((await transition(kit.api, campaign.uuid, 'complete')).data.status).toBe('in_process');
    releaseHeld();
    await eventually(async () => (await readCampaign(kit.api, campaign.uuid)).status === 'completed');
    expect((await tasksOf(kit, kit.tenant.uuid, { campaign_uuid: campaign.uuid })).map((t) => t.status)).toEqual(['completed']);
  });
});

describe('activation creates the tasks of the eligible pool contacts', () => {
  it('one task per eligible pool item, with the campaign’s agent, type, data, priority and first active rule; opted-out contacts skipped', async () => {
    const tenant = await kit.createTenant();
    const inactive = await createClosedRule(tenant.api, { is_active: false });
    const rule = await createClosedRule(tenant.api);
    const agent = await createAgent(tenant.api);
    const campaign = await createCampaign(tenant.api, { agent_uuid: agent, task_data: { script: 'renewal' }, priority: 7, rule_uuids: [inactive.uuid, rule.uuid] });
    const [first, second] = [await createPool(tenant.api, campaign.uuid, 'First'), await createPool(tenant.api, campaign.uuid, 'Second')];
    const [ana, ben, shared] = await createContacts(tenant.api, 3);
    const [optedOut] = await createContacts(tenant.api, 1, { opted_out: true });
    // While draft, adding makes no task.
    expect(await addToPool(tenant.api, first.uuid, [ana, ben, shared, optedOut])).toEqual({ added: 4, tasks_created: 0 });
    expect(await addToPool(tenant.api, second.uuid, [shared])).toEqual({ added: 1, tasks_created: 0 });
    expect(await tasksOf(kit, tenant.tenant.uuid)).toEqual([]);

    await activate(tenant.api, campaign.uuid);
    const tasks = await tasksOf(kit, tenant.tenant.uuid);
    expect(sortedPairs(tasks)).toEqual([`${first.uuid}/${ana}`, `${first.uuid}/${ben}`, `${first.uuid}/${shared}`, `${second.uuid}/${shared}`].sort());
    for (const task of tasks) {
      expect(task).toMatchObject({
        campaign_uuid: campaign.uuid,
        agent_uuid: agent,
        type: TEST_TASK_TYPE,
        rule_uuid: rule.uuid,
        priority: 7,
        task_data: { script: 'renewal' },
        title: campaign.name,
        status: 'scheduled',
      });
    }

    // Active: a new contact gets its task at once; one already in the pool gets nothing more.
    const [late] = await createContacts(tenant.api, 1);
    expect(await addToPool(tenant.api, second.uuid, [late, shared])).toEqual({ added: 1, tasks_created: 1 });
    expect(await addToPool(tenant.api, second.uuid, [late])).toEqual({ added: 0, tasks_created: 0 });
    expect(await tasksOf(kit, tenant.tenant.uuid)).toHaveLength(5);
  });

  it('pausing cancels the waiting tasks and re-activating makes them anew, never a second task for a pool item still worked', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    const contacts = await createContacts(tenant.api, 3);
    await addToPool(tenant.api, pool.uuid, contacts);
    await activate(tenant.api, campaign.uuid);
    const before = await tasksOf(kit, tenant.tenant.uuid);
    expect(before).toHaveLength(3);

    // One task is being run when the campaign pauses (set by hand: its window is days away).
    await kit.kernel.orm.em.fork().getConnection().execute(`update tasks set status = 'in_progress' where uuid = ?`, [before[0].uuid]);
    await transition(tenant.api, campaign.uuid, 'pause');
    const paused = await tasksOf(kit, tenant.tenant.uuid);
    expect(paused.map((task) => task.status)).toEqual(['in_progress', 'cancelled', 'cancelled']);

    // Paused: contacts join the pool without a task.
    const [late] = await createContacts(tenant.api, 1);
    expect(await addToPool(tenant.api, pool.uuid, [late])).toEqual({ added: 1, tasks_created: 0 });

    expect((await transition(tenant.api, campaign.uuid, 'activate')).data.status).toBe('active');
    const after = unfinished(await tasksOf(kit, tenant.tenant.uuid));
    // Exactly one unfinished task per pool item: the running one kept, the others and the late contact made anew.
    expect(sortedPairs(after)).toEqual([...contacts, late].map((contact) => `${pool.uuid}/${contact}`).sort());
    expect(after.filter((task) => task.status === 'in_progress').map((task) => task.uuid)).toEqual([before[0].uuid]);
  });

  it('works set-based: resuming a campaign of 300 contacts takes a few statements, not one per contact', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    const listing = (await tenant.api.post('/api/v1/listings').send({ name: 'Many', pool_uuid: pool.uuid }).expect(201)).body.data;
    const contacts = Array.from({ length: 300 }, (_, i) => ({ email: `many-${i}@example.com` }));
    expect((await tenant.api.post(`/api/v1/listings/${listing.uuid}/contacts`).send({ contacts }).expect(200)).body.data.created).toBe(300);
    await activate(tenant.api, campaign.uuid);
    await transition(tenant.api, campaign.uuid, 'pause');
    expect(unfinished(await tasksOf(kit, tenant.tenant.uuid))).toEqual([]);

    const spy = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
    try {
      await transition(tenant.api, campaign.uuid, 'activate');
      // The task runner works meanwhile (it postpones the first tasks' due messages, reading their contacts): count only statements it never makes.
      const statements = spy.mock.calls.map(([context]) => String(context.query));
      const count = (pattern: RegExp) => statements.filter((sql) => pattern.test(sql)).length;
      expect(count(/from pool_items pi/)).toBe(1);
      const inserts = count(/^insert into "?tasks"?\s/);
      expect(inserts).toBeGreaterThan(0);
      expect(inserts).toBeLessThanOrEqual(3);
    } finally {
      spy.mockRestore();
    }
    expect(unfinished(await tasksOf(kit, tenant.tenant.uuid))).toHaveLength(300);
  });
});
