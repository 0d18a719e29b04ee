import crypto from 'node:crypto';
import { createTestDatabase, type ApiClient, type TestKernel } from '../../../core/testing';
import { CAMPAIGN_IMPORT_ATTEMPTS } from '../../../plugins/outreach/campaigns/campaign-import';
import { unreadableSecret } from '../../../plugins/outreach/campaigns/campaign-secret';
import { taskSecretColumn } from '../../../plugins/outreach/tasks/task-secret';
import {
  activate,
  addToPool,
  createAgent,
  createClosedRule,
  createContacts,
  createPool,
  eventually,
  readCampaign,
  startOutreachKit,
  tasksOf,
  transition,
  type Json,
} from './outreach-test-kit';

const key = () => crypto.randomBytes(32).toString('base64');

/**
 * A failure no retry cures: the campaigns' webhook secrets were sealed under a key the
 * installation no longer holds (the operator dropped it from SECRETS_KEY before
 * rotating). Their tasks cannot be made without the secret, on any attempt.
 */
describe('an activation whose tasks cannot be created', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let kit: TestKernel;
  let acme: ApiClient;
  let acmeTenantUuid: string;
  /** A draft webhook campaign with a contact in its pool. */
  let draft: Json;
  /** A paused webhook campaign with a contact in its pool (added while paused: no task yet). */
  let paused: Json;

  beforeAll(async () => {
    database = await createTestDatabase();
    const before = await startOutreachKit({ config: { databaseUrl: database.url, secretsKey: key() } });
    let token: string;
    try {
      const agent = await createAgent(before.api);
      // Closed for days: the tasks made in the end wait instead of calling anyone.
      const rule = await createClosedRule(before.api);
      const webhookCampaign = async (name: string) => {
        const body = { name, agent_uuid: agent, task_type: 'webhook', task_data: { url: 'https://crm.example.com/hook', secret: 'old secret' }, rule_uuids: [rule.uuid] };
        const campaign = (await before.api.post('/api/v1/campaigns').send(body).expect(201)).body.data;
        return { campaign, pool: await createPool(before.api, campaign.uuid) };
      };
      const first = await webhookCampaign('Draft');
      await addToPool(before.api, first.pool.uuid, await createContacts(before.api, 1));
      draft = first.campaign;
      const second = await webhookCampaign('Paused');
      await activate(before.api, second.campaign.uuid);
      await transition(before.api, second.campaign.uuid, 'pause');
      await addToPool(before.api, second.pool.uuid, await createContacts(before.api, 1));
      paused = second.campaign;
      acmeTenantUuid = before.tenant.uuid;
      token = before.token;
    } finally {
      await before.stop();
    }
    // The same database with another key only; bus retries a few milliseconds apart.
    kit = await startOutreachKit({ tenant: 'other', config: { databaseUrl: database.url, secretsKey: key(), busBackoffInitialMs: 20, busBackoffMaxMs: 100 } });
    acme = kit.client({ host: `acme.${kit.kernel.config.core.baseDomain}`, token });
  });
  afterAll(async () => {
    await kit?.stop();
    await database?.drop();
  });

  it('is retried by the bus, then on its last attempt goes back to draft with the reason, none of its tasks made and no dead letter', async () => {
    const answer = await transition(acme, draft.uuid, 'activate');
    expect(answer.data).toMatchObject({ status: 'importing', last_error: null });
    let campaign: Json = answer.data;
    await eventually(async () => (campaign = await readCampaign(acme, draft.uuid)).status !== 'importing');
    expect(campaign).toMatchObject({ status: 'draft', last_error: unreadableSecret('unknown-key') });
    expect(await tasksOf(kit, acmeTenantUuid, { campaign_uuid: draft.uuid })).toEqual([]);

    const warning = kit.logs.find((line) => line.campaign_uuid === draft.uuid && String(line.message).startsWith('campaign import failed'));
    expect(warning).toMatchObject({ level: 'warn', attempt: CAMPAIGN_IMPORT_ATTEMPTS, error: unreadableSecret('unknown-key') });
    const deadLetters = await kit.kernel.orm.em.fork().getConnection().execute(`select consumer from bus_dead_letters where payload->>'campaign_uuid' = ?`, [draft.uuid]);
    expect(deadLetters).toEqual([]);
  });

  it('once the cause is removed (a new secret), activates again: the error is cleared and the tasks are made', async () => {
    await acme.patch(`/api/v1/campaigns/${draft.uuid}`).send({ task_data: { url: 'https://crm.example.com/hook', secret: 'new secret' } }).expect(200);
    const campaign = await activate(acme, draft.uuid);
    expect(campaign.last_error).toBeNull();
    const [task, ...more] = await tasksOf(kit, acmeTenantUuid, { campaign_uuid: draft.uuid });
    expect(more).toEqual([]);
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select webhook_secret from tasks where uuid = ?', [task.uuid]);
    expect(kit.kernel.secrets.decrypt(row.webhook_secret, taskSecretColumn.context(acmeTenantUuid))).toBe('new secret');
  });

  it('from paused, where the tasks are made in the request, it is a 409 naming the way out, and the campaign stays paused', async () => {
    const refused = await transition(acme, paused.uuid, 'activate', 409);
    expect(refused).toEqual({ success: false, message: unreadableSecret('unknown-key'), data: [] });
    expect(await readCampaign(acme, paused.uuid)).toMatchObject({ status: 'paused', last_error: null });
    expect(await tasksOf(kit, acmeTenantUuid, { campaign_uuid: paused.uuid })).toEqual([]);
  });
});
