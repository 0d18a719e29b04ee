import path from 'node:path';
import supertest from 'supertest';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { lifecycleProbe } from './fixtures/lifecycle-probe';
import { waitFor } from '../../../core/testing';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
/** Long enough that only the NOTIFY can explain a change seen in time. */
const LONG_CACHE = { authCacheTtlMs: 600_000, busPollIntervalMs: 500 };

function suspensionCases(transport: Record<string, unknown>): void {
  let kit: TestKernel;
  let second: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [NOTES, lifecycleProbe], config: { ...LONG_CACHE, ...transport } });
    second = await startTestKernel({ plugins: [NOTES, lifecycleProbe], config: { ...LONG_CACHE, ...transport }, databaseUrl: kit.kernel.config.core.databaseUrl, tenant: 'second' });
  });
  afterAll(async () => {
    await second?.stop();
    await kit?.stop();
  });

  const sql = <T>(text: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute<T[]>(text, params);
  const publish = (tenant: TestKernel['tenant']) =>
    runInContext({ tenant }, () => kit.kernel.orm.em.fork().transactional(() => kit.kernel.bus.publish('lc.ping', { at: Date.now() })));

  it('suspended: 403 in every process and its messages held; reactivated: 200 and the held messages handled', async () => {
    const acme = kit.tenant;
    const onSecond = () => supertest(second.url).get('/api/v1/notes').set('Host', 'acme.localhost').set('Authorization', `Bearer ${kit.token}`);
    await kit.api.get('/api/v1/notes').expect(200);
    await onSecond().expect(200); // cached there for ten minutes

    const suspended = await kit.admin.patch('/admin/v1/tenants/acme').send({ status: 'suspended' }).expect(200);
    expect(suspended.body.data).toEqual({ uuid: acme.uuid, slug: 'acme', name: 'acme', status: 'suspended', created_at: expect.any(String), quotas: expect.any(Object) });
    const refused = await kit.api.get('/api/v1/notes').expect(403);
    expect(refused.body.message).toBe('Tenant acme is suspended');
    await waitFor(() => onSecond().then((r) => r.status), (status) => status === 403, 5_000);
    const listed = await kit.admin.get('/admin/v1/tenants?status=suspended').expect(200);
    expect(listed.body.data.items.map((t: { slug: string }) => t.slug)).toEqual(['acme']);

    // Another tenant's messages go on; acme's wait in the outbox, held, unhandled.
    const other = await kit.createTenant();
    const otherId = await publish(other.tenant);
    const heldId = await publish(acme);
    await waitFor(() => sql<{ message_id: string }>('select message_id from lc_handled'), (rows) => rows.some((r) => r.message_id === otherId));
    const held = await waitFor(
      () => sql<{ attempt: number; consumer: string }>('select attempt, consumer from bus_outbox where message_id = ? and held', [heldId]),
      (rows) => rows.length > 0,
    );
    expect(held[0]).toEqual({ attempt: 1, consumer: 'lifecycle-probe.noter' });
    expect(await sql('select * from lc_handled where message_id = ?', [heldId])).toEqual([]);
    expect(await sql('select * from bus_dead_letters where message_id = ?', [heldId])).toEqual([]);

    const active = await kit.admin.patch('/admin/v1/tenants/acme').send({ status: 'active', name: 'Acme Inc' }).expect(200);
    expect(active.body.data).toMatchObject({ status: 'active', name: 'Acme Inc' });
    await kit.api.get('/api/v1/notes').expect(200);
    await waitFor(() => onSecond().then((r) => r.status), (status) => status === 200, 5_000);
    // Released at once, not at the end of the hold (a minute): handled once, as acme, on its first attempt.
    const handled = await waitFor(() => sql<{ owner: string; attempt: number }>('select owner, attempt from lc_handled where message_id = ?', [heldId]), (rows) => rows.length > 0, 10_000);
    expect(handled).toEqual([{ owner: acme.uuid, attempt: 1 }]);
    await kit.outboxDrained();
  });

  it('PATCH sets and resets quotas (core/limits), shown with the tenant', async () => {
    const before = (await kit.admin.get('/admin/v1/tenants/acme').expect(200)).body.data.quotas;
    expect(typeof before.agents).toBe('number');
    const set = await kit.admin.patch('/admin/v1/tenants/acme').send({ quotas: { agents: before.agents + 7 } }).expect(200);
    expect(set.body.data).toMatchObject({ slug: 'acme', status: 'active', quotas: { ...before, agents: before.agents + 7 } });
    expect((await kit.admin.get('/admin/v1/tenants/acme').expect(200)).body.data.quotas.agents).toBe(before.agents + 7);
    const reset = await kit.admin.patch('/admin/v1/tenants/acme').send({ quotas: { agents: null } }).expect(200);
    expect(reset.body.data.quotas).toEqual(before);
    const negative = await kit.admin.patch('/admin/v1/tenants/acme').send({ quotas: { agents: -1 } }).expect(422);
    expect(JSON.stringify(negative.body)).toContain('quotas');
    await kit.admin.patch('/admin/v1/tenants/acme').send({ quotas: { unknown_quota: 1 } }).expect(422);
  });

  it('PATCH refuses what it cannot do with the field path', async () => {
    const wrong = await kit.admin.patch('/admin/v1/tenants/acme').send({ status: 'deleting' }).expect(422);
    expect(JSON.stringify(wrong.body)).toContain('status');
    await kit.admin.patch('/admin/v1/tenants/acme').send({ slug: 'other' }).expect(422);
    await kit.admin.patch('/admin/v1/tenants/acme').send({}).expect(422);
    await kit.admin.patch('/admin/v1/tenants/nobody').send({ status: 'active' }).expect(404);
    await kit.api.patch('/admin/v1/tenants/acme').send({ status: 'active' }).expect(401);
    const tenants = await kit.admin.get('/admin/v1/tenants').expect(200);
    expect(tenants.body.data.items.every((t: { status: string }) => t.status === 'active')).toBe(true);
  });
}

describe('tenant suspension (in-process bus)', () => suspensionCases({}));
// RabbitMQ when AMQP_URL points at a broker.
(process.env.AMQP_URL ? describe : describe.skip)('tenant suspension (RabbitMQ)', () => suspensionCases({ amqpUrl: process.env.AMQP_URL }));
