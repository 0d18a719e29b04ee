import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { createTestDatabase } from '../../../core/testing';
import { startTestKernel } from '../../../core/testing';
import { CLI_TEST_TIMEOUT_MS, ROOT, switchboard } from './cli-helpers';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const EXAMPLES = path.join(ROOT, 'examples/plugins');

describe('switchboard CLI', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('tenant create prints {tenant, token} and the token works against the API; token create prints {token}', async () => {
    const env = { DATABASE_URL: database.url };
    const created = await switchboard(['tenant', 'create', 'acme', '--name', 'Acme Inc'], env);
    expect(created.code).toBe(0);
    const output = JSON.parse(created.stdout);
    expect(output).toEqual({ tenant: { uuid: expect.any(String), slug: 'acme', name: 'Acme Inc' }, token: expect.stringMatching(/^sbt_/) });

    const extra = await switchboard(['token', 'create', 'acme', '--scopes', 'read'], env);
    expect(extra.code).toBe(0);
    const { token } = JSON.parse(extra.stdout);

    // The same database, served by a kernel: both tokens belong to acme.
    const kit = await startTestKernel({ config: { databaseUrl: database.url }, tenant: 'other' });
    try {
      const res = await supertest(kit.url).get('/api/v1/anything').set('Host', 'acme.localhost').set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(404); // authenticated (not 401), and no such route
      expect(res.body.message).toBe('Route GET /api/v1/anything not found');
    } finally {
      await kit.stop();
    }
  });

  it('refuses a duplicate slug and an invalid one with a message and exit code 1', async () => {
    const env = { DATABASE_URL: database.url };
    await switchboard(['tenant', 'create', 'dup'], env);
    const again = await switchboard(['tenant', 'create', 'dup'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Tenant "dup" already exists');
    const invalid = await switchboard(['tenant', 'create', 'Not_Valid'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('slug must be 1-63 of a-z');
  });

  it('migrate applies the migrations of every installed plugin, including PLUGINS_PATH', async () => {
    const fresh = await createTestDatabase();
    try {
      const result = await switchboard(['migrate'], { DATABASE_URL: fresh.url, PLUGINS_PATH: EXAMPLES });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).migrations).toEqual(['core/0001-tenancy', 'core/0002-bus', 'core/0003-llm-usage', 'core/0004-bus-wake-after-commit', 'core/0005-idempotency-keys', 'core/0006-tenant-lifecycle', 'core/0007-limits', 'core/0008-llm-usage-agent', 'core/0009-bus-outbox-keys', 'agents/0001-agents', 'agents/0002-channel-public-key', 'agent-webhooks/0001-agent-webhook-deliveries', 'flows/0001-flows', 'flows/0002-trigger-cursors', 'flows/0003-step-versions', 'flows/0004-oauth-connections', 'conversations/0001-conversations', 'conversations/0002-conversation-message-order', 'conversations/0003-message-delivery', 'conversations/0004-history-index', 'evaluation/0001-evaluation', 'contacts/0001-contacts', 'outreach/0001-outreach', 'tables/0001-tables', 'tables/0002-search-vectors', 'tables/0003-record-keys', 'tables/0004-upload-chunk-storage', 'memorize/0001-memorize', 'memorize/0002-contact-memories', 'runtime/0001-runtime', 'appointments/0001-appointments', 'appointments-calendar/0001-appointment-calendar-events', 'channels/0001-channels', 'channels/0002-chatapp-templates', 'channels/0003-template-status-reason', 'channels/0004-inbound-order', 'channels/0005-send-order', 'telephony/0001-telephony', 'calls/0001-calls', 'calls/0002-call-transfer-fallback', 'transcriptions/0001-transcriptions', 'web-chat/0001-web-chat', 'notes/0001-notes']);
    } finally {
      await fresh.drop();
    }
  });

  it('plugins lists the installed plugins in load order; a bad set is a boot error naming the plugins', async () => {
    const listed = await switchboard(['plugins'], { PLUGINS_PATH: EXAMPLES });
    expect(listed.code).toBe(0);
    const ids = JSON.parse(listed.stdout).map((p: { id: string }) => p.id);
    expect(ids.indexOf('notes')).toBeLessThan(ids.indexOf('notes-word-count'));

    const broken = await switchboard(['plugins'], { PLUGINS_PATH: EXAMPLES, DISABLED_PLUGINS: 'notes' });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('plugin "notes-word-count" depends on "notes", which is not installed');
  });

  it('config prints the effective configuration with secrets redacted, and refuses invalid values naming the key', async () => {
    const shown = await switchboard(['config'], { PLUGINS_PATH: EXAMPLES, ADMIN_TOKEN: 'very-secret', NOTES_MAX_PER_TENANT: '7', PORT: '9000' });
    expect(shown.code).toBe(0);
    const config = JSON.parse(shown.stdout);
    expect(config).toMatchObject({ port: 9000, notes: { maxPerTenant: 7 } });
    expect(shown.stdout).not.toContain('very-secret');

    const invalid = await switchboard(['config'], { PORT: 'eighty' });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/invalid configuration: port/);
  });

  it('loads a partner plugin from outside the installation that imports switchboard/core and MikroORM', async () => {
    const partner = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-partner-'));
    fs.mkdirSync(path.join(partner, 'acme-crm'));
    fs.writeFileSync(path.join(partner, 'acme-crm', 'plugin.json'), JSON.stringify({ id: 'acme-crm', apiVersion: '1.0' }));
    fs.writeFileSync(
      path.join(partner, 'acme-crm', 'index.ts'),
      [
        "import { Entity, Property } from '@mikro-orm/decorators/legacy';",
        "import { coreServices, definePlugin, TenantScopedEntity } from 'switchboard/core';",
        "@Entity({ tableName: 'acme_crm_leads' })",
        'class Lead extends TenantScopedEntity { @Property({ type: "string" }) name!: string; }',
        "export default definePlugin({ id: 'acme-crm', entities: [Lead], deps: { http: coreServices.http }, init() {} });",
      ].join('\n'),
    );
    try {
      const listed = await switchboard(['plugins'], { PLUGINS_PATH: partner });
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([
        { id: 'agents', dependsOn: [], origin: path.join(ROOT, 'plugins/agents') },
        { id: 'agent-webhooks', dependsOn: ['agents'], origin: path.join(ROOT, 'plugins/agent-webhooks') },
        { id: 'flows', dependsOn: ['agents'], origin: path.join(ROOT, 'plugins/flows') },
        { id: 'app-agents', dependsOn: ['flows', 'agents'], origin: path.join(ROOT, 'plugins/app-agents') },
        { id: 'app-caldav', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-caldav') },
        { id: 'conversations', dependsOn: ['agents'], origin: path.join(ROOT, 'plugins/conversations') },
        { id: 'evaluation', dependsOn: ['agents', 'conversations'], origin: path.join(ROOT, 'plugins/evaluation') },
        { id: 'app-conversations', dependsOn: ['flows', 'app-agents', 'conversations', 'evaluation'], origin: path.join(ROOT, 'plugins/app-conversations') },
        { id: 'app-google-calendar', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-google-calendar') },
        { id: 'app-google-sheets', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-google-sheets') },
        { id: 'app-http', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-http') },
        { id: 'app-hubspot-crm', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-hubspot-crm') },
        { id: 'app-logic', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-logic') },
        { id: 'contacts', dependsOn: ['agents', 'conversations'], origin: path.join(ROOT, 'plugins/contacts') },
        { id: 'outreach', dependsOn: ['agents', 'contacts'], origin: path.join(ROOT, 'plugins/outreach') },
        { id: 'app-outreach', dependsOn: ['flows', 'app-agents', 'outreach'], origin: path.join(ROOT, 'plugins/app-outreach') },
        { id: 'app-schedule', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-schedule') },
        { id: 'tables', dependsOn: ['agents'], origin: path.join(ROOT, 'plugins/tables') },
        { id: 'app-tables', dependsOn: ['flows', 'tables'], origin: path.join(ROOT, 'plugins/app-tables') },
        { id: 'app-webhook', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-webhook') },
        { id: 'app-zoho-crm', dependsOn: ['flows'], origin: path.join(ROOT, 'plugins/app-zoho-crm') },
        { id: 'memorize', dependsOn: ['agents', 'conversations', 'contacts'], origin: path.join(ROOT, 'plugins/memorize') },
        { id: 'runtime', dependsOn: ['agents', 'conversations', 'contacts', 'tables', 'memorize'], origin: path.join(ROOT, 'plugins/runtime') },
        { id: 'appointments', dependsOn: ['agents', 'contacts', 'runtime'], origin: path.join(ROOT, 'plugins/appointments') },
        { id: 'appointments-calendar', dependsOn: ['appointments', 'flows'], origin: path.join(ROOT, 'plugins/appointments-calendar') },
        { id: 'channels', dependsOn: ['agents', 'contacts', 'conversations', 'runtime'], origin: path.join(ROOT, 'plugins/channels') },
        { id: 'appointments-outreach', dependsOn: ['appointments', 'outreach', 'channels', 'contacts'], origin: path.join(ROOT, 'plugins/appointments-outreach') },
        { id: 'storage', dependsOn: [], origin: path.join(ROOT, 'plugins/storage') },
        { id: 'telephony', dependsOn: ['agents'], origin: path.join(ROOT, 'plugins/telephony') },
        { id: 'calls', dependsOn: ['agents', 'conversations', 'contacts', 'runtime', 'channels', 'storage', 'telephony'], origin: path.join(ROOT, 'plugins/calls') },
        { id: 'calls-outreach', dependsOn: ['calls', 'contacts', 'outreach'], origin: path.join(ROOT, 'plugins/calls-outreach') },
        { id: 'channels-outreach', dependsOn: ['channels', 'contacts', 'outreach'], origin: path.join(ROOT, 'plugins/channels-outreach') },
        { id: 'transcriptions', dependsOn: ['agents', 'conversations', 'storage', 'agent-webhooks', 'tables'], origin: path.join(ROOT, 'plugins/transcriptions') },
        { id: 'channels-transcriptions', dependsOn: ['channels', 'transcriptions'], origin: path.join(ROOT, 'plugins/channels-transcriptions') },
        { id: 'web-chat', dependsOn: ['agents', 'conversations', 'runtime'], origin: path.join(ROOT, 'plugins/web-chat') },
        { id: 'acme-crm', dependsOn: [], origin: path.join(partner, 'acme-crm') },
      ]);
      // Booting a kernel discovers its entity with the kernel's own MikroORM.
      const migrated = await switchboard(['migrate'], { DATABASE_URL: database.url, PLUGINS_PATH: partner });
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
    } finally {
      fs.rmSync(partner, { recursive: true, force: true });
    }
  });

  it('explains unknown commands', async () => {
    const result = await switchboard(['frobnicate'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });
});
