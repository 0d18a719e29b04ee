import crypto from 'node:crypto';
import path from 'node:path';
import { definePlugin } from '../../../core';
import { startTestKernel, type ApiClient, type TestKernel, type TestKernelOptions } from '../../../core/testing';
import { taskExecutors } from '../../../plugins/outreach';

/** Shared helpers of the campaign, pool, listing and rule tests (not a test file itself). */

const PLUGINS = path.resolve(__dirname, '../../../plugins');
export const OUTREACH_PLUGINS = ['agents', 'conversations', 'contacts', 'outreach'].map((id) => path.join(PLUGINS, id));

export type Json = Record<string, any>;

/**
 * The task type the campaigns of these tests use, run by the executor below: a type no
 * built-in executor takes, so the tests depend only on the executor extension point.
 */
export const TEST_TASK_TYPE = 'survey';

/** The task type whose executor holds each task until `releaseHeld()`: a task that stays `in_progress` as long as a test needs. */
export const HELD_TASK_TYPE = 'notification';

let release: () => void = () => {};
let held = new Promise<void>((resolve) => (release = resolve));
/** Lets every held task (and every later one) finish. */
export const releaseHeld = () => release();
/** Holds the tasks that start from now on. */
export const holdTasks = () => {
  held = new Promise<void>((resolve) => (release = resolve));
};

const testExecutors = definePlugin({
  id: 'test-executors',
  dependsOn: ['outreach'],
  contributes: [
    taskExecutors.add({
      type: TEST_TASK_TYPE,
      description: 'Test executor: succeeds',
      execute: async () => ({ ok: true }),
    }),
    taskExecutors.add({
      type: HELD_TASK_TYPE,
      description: 'Test executor: succeeds once the test releases it',
      execute: async () => {
        await held;
        return { ok: true };
      },
    }),
  ],
});

export const startOutreachKit = (options: Omit<TestKernelOptions, 'plugins'> = {}): Promise<TestKernel> =>
  startTestKernel({ ...options, plugins: [...OUTREACH_PLUGINS, testExecutors] });

export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const createAgent = async (api: ApiClient): Promise<string> => (await api.post('/api/v1/agents').send({ name: 'Caller' }).expect(201)).body.data.agent_uuid;

const unique = () => crypto.randomBytes(5).toString('hex');

/** Contacts created through the contacts API; each gets a unique email. */
export async function createContacts(api: ApiClient, count: number, body: Json = {}): Promise<string[]> {
  const uuids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post('/api/v1/contacts').send({ name: `Contact ${i}`, email: `c-${unique()}@example.com`, ...body });
    if (res.status !== 201) throw new Error(`POST /api/v1/contacts -> ${res.status} ${JSON.stringify(res.body)}`);
    uuids.push(res.body.data.uuid);
  }
  return uuids;
}

/** ISO weekday (1 = Monday) of `date` in UTC. */
const isoWeekday = (date: Date) => ((date.getUTCDay() + 6) % 7) + 1;

/**
 * A rule whose only weekday is three days away (in UTC, the zone of contacts without
 * one): its tasks wait (`scheduled`) for the whole test, whatever the runner does.
 */
export async function createClosedRule(api: ApiClient, body: Json = {}): Promise<Json> {
  const weekday = isoWeekday(new Date(Date.now() + 3 * 86_400_000));
  const res = await api.post('/api/v1/rules').send({ name: 'Later', weekdays: [weekday], timezone: 'UTC', ...body }).expect(201);
  return res.body.data;
}

export async function createCampaign(api: ApiClient, body: Json = {}): Promise<Json> {
  const agent = body.agent_uuid ?? (await createAgent(api));
  const res = await api.post('/api/v1/campaigns').send({ name: 'Renewals', agent_uuid: agent, task_type: TEST_TASK_TYPE, ...body });
  if (res.status !== 201) throw new Error(`POST /api/v1/campaigns -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const createPool = async (api: ApiClient, campaignUuid: string, name = 'Pool'): Promise<Json> =>
  (await api.post('/api/v1/pools').send({ campaign_uuid: campaignUuid, name }).expect(201)).body.data;

export async function addToPool(api: ApiClient, poolUuid: string, contactUuids: string[]): Promise<Json> {
  const res = await api.post(`/api/v1/pools/${poolUuid}/contacts`).send({ contact_uuids: contactUuids });
  if (res.status !== 200) throw new Error(`POST /pools/{uuid}/contacts -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function transition(api: ApiClient, campaignUuid: string, action: 'activate' | 'pause' | 'complete', expected = 200): Promise<Json> {
  const res = await api.post(`/api/v1/campaigns/${campaignUuid}/${action}`);
  if (res.status !== expected) throw new Error(`${action} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const readCampaign = async (api: ApiClient, uuid: string): Promise<Json> => (await api.get(`/api/v1/campaigns/${uuid}`).expect(200)).body.data;

/** Activates a draft campaign and waits for its import to make it `active`. */
export async function activate(api: ApiClient, campaignUuid: string): Promise<Json> {
  const answer = await transition(api, campaignUuid, 'activate');
  expect(answer.data.status).toBe('importing');
  let campaign: Json = answer.data;
  await eventually(async () => (campaign = await readCampaign(api, campaignUuid)).status === 'active');
  return campaign;
}

export interface TaskRow {
  uuid: string;
  contact_uuid: string;
  pool_uuid: string | null;
  campaign_uuid: string | null;
  rule_uuid: string | null;
  agent_uuid: string;
  type: string;
  status: string;
  priority: number;
  task_data: Json;
  title: string;
}

/** The tenant's tasks, read from the table (whatever the task routes show). */
export async function tasksOf(kit: TestKernel, tenantUuid: string, where: { campaign_uuid?: string; pool_uuid?: string } = {}): Promise<TaskRow[]> {
  const conditions = ['tenant_uuid = ?', ...Object.keys(where).map((column) => `${column} = ?`)];
  return kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      `select uuid, contact_uuid, pool_uuid, campaign_uuid, rule_uuid, agent_uuid, type, status, priority, task_data, title from tasks where ${conditions.join(' and ')} order by uuid`,
      [tenantUuid, ...Object.values(where)],
    );
}

export const WAITING = ['pending', 'scheduled', 'queued'];
