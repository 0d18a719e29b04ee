import crypto from 'node:crypto';
import type { TestKernel } from '../../../core/testing';
import { campaignSecretColumn } from '../../../plugins/outreach/campaigns/campaign-secret';
import { taskSecretColumn } from '../../../plugins/outreach/tasks/task-secret';
import { activate, addToPool, createCampaign, createContacts, createPool, startOutreachKit, tasksOf } from './outreach-test-kit';
import { eventually, startWebhookServer, untilStatus } from './task-test-helpers';

let kit: TestKernel;
let hooks: Awaited<ReturnType<typeof startWebhookServer>>;
beforeAll(async () => {
  hooks = await startWebhookServer();
  kit = await startOutreachKit();
});
afterAll(async () => {
  await kit?.stop();
  await hooks?.close();
});

describe('a webhook campaign’s secret', () => {
  it('is stored sealed, and each task it makes carries it sealed for the task and signs its call with it', async () => {
    const secret = 'campaign-shared-secret';
    const path = `/campaign/${crypto.randomBytes(4).toString('hex')}`;
    const campaign = await createCampaign(kit.api, { task_type: 'webhook', task_data: { url: `${hooks.url}${path}`, secret } });
    expect(campaign.task_data).toEqual({ url: `${hooks.url}${path}`, has_secret: true });
    const [stored] = await kit.kernel.orm.em.fork().getConnection().execute('select task_data, webhook_secret, row_to_json(campaigns)::text as whole from campaigns where uuid = ?', [campaign.uuid]);
    expect(stored.task_data).toEqual({ url: `${hooks.url}${path}` });
    expect(stored.whole).not.toContain(secret);
    expect(kit.kernel.secrets.decrypt(stored.webhook_secret, campaignSecretColumn.context(kit.tenant.uuid))).toBe(secret);

    const pool = await createPool(kit.api, campaign.uuid);
    await addToPool(kit.api, pool.uuid, await createContacts(kit.api, 1));
    await activate(kit.api, campaign.uuid);
    const [task] = await tasksOf(kit, kit.tenant.uuid, { campaign_uuid: campaign.uuid });
    expect(task.task_data).toEqual({ url: `${hooks.url}${path}` });
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select webhook_secret from tasks where uuid = ?', [task.uuid]);
    expect(kit.kernel.secrets.decrypt(row.webhook_secret, taskSecretColumn.context(kit.tenant.uuid))).toBe(secret);

    await untilStatus(kit.api, task.uuid, ['completed']);
    const request = await eventually(() => hooks.requests.find((candidate) => candidate.url === path));
    const timestamp = String(request.headers['x-switchboard-timestamp']);
    expect(request.headers['x-switchboard-signature']).toBe(`sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`);
    expect(request.body).not.toContain(secret);
  });

  it('is kept when the campaign is sent back as read, replaced by a new one and removed by null', async () => {
    const campaign = await createCampaign(kit.api, { task_type: 'webhook', task_data: { url: 'https://example.com/hook', secret: 'one' } });
    const sealed = async (): Promise<string | null> =>
      (await kit.kernel.orm.em.fork().getConnection().execute('select webhook_secret from campaigns where uuid = ?', [campaign.uuid]))[0].webhook_secret;
    const first = await sealed();
    await kit.api.patch(`/api/v1/campaigns/${campaign.uuid}`).send(campaign).expect(200);
    expect(await sealed()).toBe(first);
    const replaced = await kit.api.patch(`/api/v1/campaigns/${campaign.uuid}`).send({ task_data: { url: 'https://example.com/hook', secret: 'two' } }).expect(200);
    expect(replaced.body.data.task_data).toEqual({ url: 'https://example.com/hook', has_secret: true });
    expect(kit.kernel.secrets.decrypt((await sealed())!, campaignSecretColumn.context(kit.tenant.uuid))).toBe('two');
    const removed = await kit.api.patch(`/api/v1/campaigns/${campaign.uuid}`).send({ task_data: { url: 'https://example.com/hook', secret: null } }).expect(200);
    expect(removed.body.data.task_data).toEqual({ url: 'https://example.com/hook' });
    expect(await sealed()).toBeNull();
  });
});
