import crypto from 'node:crypto';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { runInContext, type TenantRef } from '../../../core/context/request-context';
import { boundQuery } from '../../../core/data/bound-query';
import { ensureRowLevelSecurity, POLICY_NAME, tenantTables } from '../../../core/data/row-level-security';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { Note } from '../../../examples/plugins/notes/note.entity';
import type { Envelope, RegisteredConsumer } from '../../../core/bus/bus-types';
import { newUuid } from '../../../core/data/uuid';

// Every installed plugin plus the examples, so that a plugin table without its policy fails here.
const pluginDirs = [...installedPluginDirs(ROOT_DIR, []), ...installedPluginDirs(path.join(ROOT_DIR, 'none'), [path.join(ROOT_DIR, 'examples/plugins')])];

/**
 * Tables with a tenant_uuid column that no tenant-scoped entity maps, and why they stay
 * outside the tenant policies. A new one must be added here with its reason, or get an
 * entity (and so a policy).
 */
const CROSS_TENANT_TABLES: Record<string, string> = {
  api_tokens: 'read by token before the tenant is known (authentication)',
  bus_outbox: 'the relay moves every tenant’s messages',
  bus_dead_letters: 'admin routes list every tenant’s dead letters',
  llm_usage: 'metered per tenant by the kernel, read by admin reports',
  idempotency_keys: 'the kernel’s own, keyed by tenant explicitly',
  tenant_deletions: 'the deletion job’s record, outliving the tenant',
  tenant_quotas: 'the kernel’s limits, read and written by admin routes',
};

const ROLE = `rls_app_${crypto.randomBytes(4).toString('hex')}`;
let kit: TestKernel;
let beta: TestTenant;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: pluginDirs });
  beta = await kit.createTenant('beta');
  const connection = kit.kernel.orm.em.fork().getConnection();
  // The application role of a production setup: no superuser, no BYPASSRLS (the test itself connects as a superuser, which bypasses).
  await connection.execute(`create role ${ROLE} nosuperuser nobypassrls nologin`);
  await connection.execute(`grant usage on schema public to ${ROLE}; grant select, insert, update, delete on all tables in schema public to ${ROLE}`);
  await kit.api.post('/api/v1/notes').send({ title: 'acme note' }).expect(201);
  await beta.api.post('/api/v1/notes').send({ title: 'beta note' }).expect(201);
}, 120_000);

afterAll(async () => {
  if (!kit) return;
  const connection = kit.kernel.orm.em.fork().getConnection();
  await connection.execute(`drop owned by ${ROLE}; drop role ${ROLE}`).catch(() => {});
  await kit.stop();
});

/** A transaction begun as `tenant` (none: cross-tenant work), running as the application role. */
function asApp<T>(tenant: TenantRef | undefined, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const em = kit.kernel.orm.em.fork();
  return runInContext({ tenant, em }, () =>
    em.transactional(async (tx) => {
      await tx.getConnection().execute(`set local role ${ROLE}`, [], 'run', tx.getTransactionContext());
      return work(tx);
    }),
  );
}

const titles = (rows: readonly { title?: unknown }[]) => rows.map((row) => String(row.title)).sort();

describe('row-level security', () => {
  it("a tenant's transaction sees only its rows, even unfiltered or in raw SQL", async () => {
    const unfiltered = await asApp(kit.tenant, (tx) => tx.find(Note, {}, { filters: { tenant: false } }));
    expect(titles(unfiltered)).toEqual(['acme note']);
    const raw = await asApp(beta.tenant, (tx) => tx.getConnection().execute('select title from example_notes', [], 'all', tx.getTransactionContext()));
    expect(titles(raw)).toEqual(['beta note']);
  });

  it("refuses to write a row of another tenant in a tenant's transaction", async () => {
    const insert = asApp(kit.tenant, (tx) =>
      tx
        .getConnection()
        .execute(
          `insert into example_notes (uuid, tenant_uuid, title, body, extras, created_at, updated_at) values (gen_random_uuid(), ?, 'planted', '', '{}', now(), now())`,
          [beta.tenant.uuid],
          'run',
          tx.getTransactionContext(),
        ),
    );
    await expect(insert).rejects.toThrow(/row-level security/);
    const move = asApp(kit.tenant, (tx) =>
      tx.getConnection().execute('update example_notes set tenant_uuid = ? where tenant_uuid = ?', [beta.tenant.uuid, kit.tenant.uuid], 'run', tx.getTransactionContext()),
    );
    await expect(move).rejects.toThrow(/row-level security/);
  });

  it('cross-tenant work (no tenant setting) sees every tenant', async () => {
    const all = await asApp(undefined, (tx) => tx.getConnection().execute('select title from example_notes', [], 'all', tx.getTransactionContext()));
    expect(titles(all)).toEqual(['acme note', 'beta note']);
  });

  it('a transaction after a tenant’s on the same connection does not inherit its tenant', async () => {
    // Pool of 10: enough rounds that connections are reused across tenants and cross-tenant work.
    for (let round = 0; round < 12; round++) {
      const tenant = round % 3 === 0 ? undefined : round % 3 === 1 ? kit.tenant : beta.tenant;
      const rows = await asApp(tenant, (tx) => tx.getConnection().execute('select title from example_notes', [], 'all', tx.getTransactionContext()));
      expect(titles(rows)).toEqual(tenant === undefined ? ['acme note', 'beta note'] : tenant === kit.tenant ? ['acme note'] : ['beta note']);
    }
  });

  it('statements outside a transaction carry their own tenant, also when they waited for a connection', async () => {
    const setting = `select coalesce(current_setting('app.tenant_id', true), '') as tenant`;
    const tenants = [kit.tenant, beta.tenant, undefined];
    // Three times the pool: most wait for a connection another tenant's statement releases.
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const tenant = tenants[i % 3];
        const em = kit.kernel.orm.em.fork();
        return runInContext({ tenant, em }, async () => {
          const viaPool = await boundQuery<{ tenant: string }>(em, setting);
          const viaOrm = await em.getConnection().execute(setting);
          return { expected: tenant?.uuid ?? '', got: [viaPool[0].tenant, viaOrm[0].tenant] };
        });
      }),
    );
    for (const { expected, got } of results) expect(got).toEqual([expected, expected]);
  });

  it('every tenant-scoped table has row-level security forced and the tenant policy', async () => {
    const tables = tenantTables(kit.kernel.orm);
    expect(tables.map((t) => t.table)).toEqual(expect.arrayContaining(['example_notes']));
    const rows: { table: string; enabled: boolean; forced: boolean; policy: string | null }[] = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(
        `select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced, p.qual as policy ` +
          `from pg_class c join pg_namespace n on n.oid = c.relnamespace left join pg_policies p on p.schemaname = n.nspname and p.tablename = c.relname and p.policyname = ? ` +
          `where n.nspname = 'public' and c.relkind in ('r', 'p')`,
        [POLICY_NAME],
      );
    const byTable = new Map(rows.map((row) => [row.table, row]));
    const missing = tables
      .filter(({ table }) => {
        const row = byTable.get(table);
        return !row || !row.enabled || !row.forced || !row.policy?.includes('tenant_uuid');
      })
      .map(({ entity, table }) => `${entity} (${table})`);
    expect(missing).toEqual([]);
  });

  it('every other table with a tenant_uuid column is a known cross-tenant one', async () => {
    const mapped = new Set(tenantTables(kit.kernel.orm).map((t) => t.table));
    const rows: { table: string }[] = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(`select distinct table_name as table from information_schema.columns where table_schema = 'public' and column_name = 'tenant_uuid'`);
    const unknown = rows.map((row) => row.table).filter((table) => !mapped.has(table) && !(table in CROSS_TENANT_TABLES));
    expect(unknown).toEqual([]);
  });

  it('is idempotent, and DATABASE_ROW_LEVEL_SECURITY=false turns it off and back on', async () => {
    const orm = kit.kernel.orm;
    expect(await ensureRowLevelSecurity(orm, true)).toEqual([]);
    const off = await ensureRowLevelSecurity(orm, false);
    expect(off).toEqual(expect.arrayContaining(['public.example_notes']));
    try {
      const all = await asApp(kit.tenant, (tx) => tx.getConnection().execute('select title from example_notes', [], 'all', tx.getTransactionContext()));
      expect(titles(all)).toEqual(['acme note', 'beta note']);
    } finally {
      expect((await ensureRowLevelSecurity(orm, true)).sort()).toEqual(off.sort());
    }
    const again = await asApp(kit.tenant, (tx) => tx.getConnection().execute('select title from example_notes', [], 'all', tx.getTransactionContext()));
    expect(titles(again)).toEqual(['acme note']);
  });

  it('each bus handler of a batch runs with its own message’s tenant, and a message alone too', async () => {
    const seen = new Map<string, string>();
    const consumer: RegisteredConsumer = {
      name: 'rls-test.probe',
      topics: ['rls.probe'],
      concurrency: 1,
      retry: { attempts: 1, backoff: { initialMs: 1, factor: 1, maxMs: 1 } },
      handler: async (message: { id: string }, { em }: { em: EntityManager }) => {
        const [row] = await em.getConnection().execute(`select coalesce(current_setting('app.tenant_id', true), '') as tenant`, [], 'all', em.getTransactionContext());
        seen.set(message.id, row.tenant);
      },
    };
    const envelope = (tenant: TenantRef | undefined): Envelope => ({
      rowId: '',
      messageId: newUuid(),
      topic: 'rls.probe',
      payload: {},
      headers: {},
      tenantUuid: tenant?.uuid ?? null,
      consumer: null,
      attempt: 1,
    });
    const batch = [envelope(kit.tenant), envelope(beta.tenant), envelope(undefined), envelope(kit.tenant)];
    expect((await kit.kernel.bus.delivery.deliverBatch(consumer, batch)).outcomes).toEqual(['handled', 'handled', 'handled', 'handled']);
    expect(batch.map((e) => seen.get(e.messageId))).toEqual([kit.tenant.uuid, beta.tenant.uuid, '', kit.tenant.uuid]);
    const alone = envelope(beta.tenant);
    expect(await kit.kernel.bus.delivery.deliver(consumer, alone)).toBe('handled');
    expect(seen.get(alone.messageId)).toBe(beta.tenant.uuid);
  });
});
