import crypto from 'node:crypto';
import { Pool } from 'pg';
import { createTestDatabase, startTestKernel } from '../../../core/testing';
import { parseKeyring } from '../../../core/secrets/keyring';
import { Secrets } from '../../../core/secrets/secrets';
import { campaignSecretColumn } from '../../../plugins/outreach/campaigns/campaign-secret';
import { taskSecretColumn } from '../../../plugins/outreach/tasks/task-secret';
import { KERNEL_PLUGINS, createAgent, createContact, createTask, inMs } from './task-test-helpers';

const key = () => crypto.randomBytes(32).toString('base64');
const DAY = 24 * 3600_000;

describe('sealed webhook secrets and key rotation', () => {
  it('`secrets rotate` re-seals the secrets of tasks and campaigns under the newest key, so the old key can go', async () => {
    const database = await createTestDatabase();
    const pool = new Pool({ connectionString: database.url, max: 1 });
    const [oldKey, newKey] = [key(), key()];
    try {
      const before = await startTestKernel({ plugins: KERNEL_PLUGINS, config: { databaseUrl: database.url, secretsKey: oldKey } });
      const tenantUuid = before.tenant.uuid;
      let taskUuid: string;
      let campaignUuid: string;
      try {
        const agent = await createAgent(before.api);
        const contact = await createContact(before.api);
        const url = 'https://crm.example.com/hook';
        taskUuid = (await createTask(before.api, { type: 'webhook', agent_uuid: agent, contact_uuid: contact.uuid, scheduled_at: inMs(DAY), task_data: { url, secret: 'task secret' } })).uuid;
        const campaign = await before.api.post('/api/v1/campaigns').send({ name: 'Hooks', agent_uuid: agent, task_type: 'webhook', task_data: { url, secret: 'campaign secret' } }).expect(201);
        campaignUuid = campaign.body.data.uuid;
      } finally {
        await before.stop();
      }
      const sealed = async () => ({
        task: (await pool.query('select webhook_secret from tasks where uuid = $1', [taskUuid])).rows[0].webhook_secret as string,
        campaign: (await pool.query('select webhook_secret from campaigns where uuid = $1', [campaignUuid])).rows[0].webhook_secret as string,
      });
      const underOldKey = await sealed();

      const rotating = await startTestKernel({ plugins: KERNEL_PLUGINS, tenant: 'other', config: { databaseUrl: database.url, secretsKey: `${oldKey},${newKey}` } });
      try {
        const report = await rotating.kernel.secrets.rotateAll(pool);
        expect(report.columns).toEqual(
          expect.arrayContaining([
            { table: 'tasks', column: 'webhook_secret', rotated: 1, failed: 0, failures: [] },
            { table: 'campaigns', column: 'webhook_secret', rotated: 1, failed: 0, failures: [] },
          ]),
        );
      } finally {
        await rotating.stop();
      }

      const rotated = await sealed();
      expect(rotated.task).not.toBe(underOldKey.task);
      expect(rotated.campaign).not.toBe(underOldKey.campaign);
      // The new key alone opens them now, each in its own column's context only.
      const onlyNewKey = new Secrets(parseKeyring(newKey, 'SECRETS_KEY'));
      expect(onlyNewKey.decrypt(rotated.task, taskSecretColumn.context(tenantUuid))).toBe('task secret');
      expect(onlyNewKey.decrypt(rotated.campaign, campaignSecretColumn.context(tenantUuid))).toBe('campaign secret');
      expect(() => onlyNewKey.decrypt(rotated.task, campaignSecretColumn.context(tenantUuid))).toThrow();
    } finally {
      await pool.end();
      await database.drop();
    }
    // Two kernels boot and migrate a database of their own, one after the other: over 30 s on a busy machine.
  }, 120_000);
});
