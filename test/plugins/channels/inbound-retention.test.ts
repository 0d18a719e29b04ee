import path from 'node:path';
import { v7 } from 'uuid';
import { captureLogger, startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import type { LifecycleService, OrmService } from '../../../core';
import { pruneInboundMessages, scheduleInboundRetention, uuidBefore } from '../../../plugins/channels/inbound/inbound-retention';
import { RUNTIME_PLUGINS } from '../runtime/runtime-test-kit';

/**
 * The replay-protection rows of inbound messages are deleted once older than the
 * retention. The kernel only serves (no pruning of its own runs); the test writes rows
 * as the hook does (a time-ordered id of the moment, the same created_at), some days old.
 */

const CHANNELS = path.resolve(__dirname, '../../../plugins/channels');
const DAY = 86_400_000;

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, CHANNELS], role: 'serve' });
});
afterAll(() => kit?.stop());

const sql = (statement: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(statement, params);

let sequence = 0;
/** `count` rows of one channel of `tenantUuid`, each made `daysAgo` days ago. */
async function rows(count: number, daysAgo: number, tenantUuid = kit.tenant.uuid): Promise<string[]> {
  const channel = v7();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(Date.now() - daysAgo * DAY - i);
    const uuid = v7({ msecs: at.getTime() });
    ids.push(uuid);
    sequence += 1;
    await sql(
      'insert into channel_inbound_messages (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id) values (?, ?, ?, ?, ?, ?)',
      [uuid, tenantUuid, at, at, channel, `ext-${sequence}`],
    );
  }
  return ids;
}

const remaining = async (ids: string[]) => (await sql('select uuid from channel_inbound_messages where uuid = any(?::uuid[])', [`{${ids.join(',')}}`])).map((row: any) => row.uuid).sort();

describe('pruneInboundMessages', () => {
  beforeEach(() => sql('delete from channel_inbound_messages'));

  it('the cutoff id is above every id of an earlier millisecond and below every id of that one', () => {
    const at = new Date('2026-03-01T10:00:00.000Z');
    expect(uuidBefore(at) > v7({ msecs: at.getTime() - 1, seq: 0xffffffff, random: new Uint8Array(16).fill(255) })).toBe(true);
    expect(uuidBefore(at) <= v7({ msecs: at.getTime(), seq: 0, random: new Uint8Array(16) })).toBe(true);
  });

  it('deletes rows older than the retention, of every tenant, batch after batch, and keeps the recent ones', async () => {
    const other = await kit.createTenant();
    const old = [...(await rows(7, 8)), ...(await rows(4, 30, other.tenant.uuid))];
    const kept = [...(await rows(3, 6)), ...(await rows(2, 0))];

    const em = kit.kernel.orm.em.fork();
    const execute = jest.spyOn(em.getConnection(), 'execute');
    expect(await pruneInboundMessages(em, 7, { batchSize: 5 })).toBe(11);
    // 5, 5, then a short batch of 1 ends it.
    expect(execute.mock.calls.filter(([statement]) => String(statement).startsWith('delete'))).toHaveLength(3);
    execute.mockRestore();

    expect(await remaining(old)).toEqual([]);
    expect(await remaining(kept)).toEqual([...kept].sort());
  });

  it('lets several processes prune at once, each row deleted once', async () => {
    const old = await rows(30, 10);
    const counts = await Promise.all([1, 2, 3].map(() => pruneInboundMessages(kit.kernel.orm.em.fork(), 7, { batchSize: 4 })));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(30);
    expect(await remaining(old)).toEqual([]);
  });

  it('a provider retrying a message kept is still refused: the unique key holds until the row goes', async () => {
    const [recent] = await rows(1, 1);
    const [row] = await sql('select channel_uuid, external_id from channel_inbound_messages where uuid = ?', [recent]);
    await pruneInboundMessages(kit.kernel.orm.em.fork(), 7);
    const again = await sql(
      'insert into channel_inbound_messages (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id) values (?, ?, now(), now(), ?, ?) on conflict (channel_uuid, external_id) do nothing returning uuid',
      [v7(), kit.tenant.uuid, row.channel_uuid, row.external_id],
    );
    expect(again).toEqual([]);
  });
});

describe('scheduleInboundRetention', () => {
  /** What the plugin's `orm` dep gives the schedule: a fresh EntityManager per run. */
  const ormService = () => ({ fork: () => kit.kernel.orm.em.fork() }) as unknown as OrmService;

  beforeEach(() => sql('delete from channel_inbound_messages'));

  /** A lifecycle of a process of `role`, whose start and stop the test runs. */
  function lifecycleOf(role: LifecycleService['role']) {
    const starts: Array<() => unknown> = [];
    const stops: Array<() => unknown> = [];
    const lifecycle = { role, onStart: (hook: () => unknown) => void starts.push(hook), onStop: (hook: () => unknown) => void stops.push(hook) } as unknown as LifecycleService;
    return { lifecycle, start: () => Promise.all(starts.map((hook) => hook())), stop: () => Promise.all(stops.map((hook) => hook())), hooks: () => starts.length + stops.length };
  }

  it('a worker prunes as it starts, with the configured retention, and stops with the process', async () => {
    const old = await rows(3, 4);
    const kept = await rows(2, 2);
    const { lifecycle, start, stop } = lifecycleOf('worker');
    const { logger } = captureLogger();
    scheduleInboundRetention({ lifecycle, orm: ormService(), logger, retentionDays: 3 });
    await start();
    await waitFor(() => remaining(old), (left) => left.length === 0);
    await stop();
    expect(await remaining(kept)).toEqual([...kept].sort());
  });

  it('a process that only serves, or a retention of 0, schedules nothing', async () => {
    const { logger } = captureLogger();
    const serving = lifecycleOf('serve');
    scheduleInboundRetention({ lifecycle: serving.lifecycle, orm: ormService(), logger, retentionDays: 7 });
    expect(serving.hooks()).toBe(0);
    const forever = lifecycleOf('worker');
    scheduleInboundRetention({ lifecycle: forever.lifecycle, orm: ormService(), logger, retentionDays: 0 });
    expect(forever.hooks()).toBe(0);
  });
});
