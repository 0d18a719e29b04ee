import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/**
 * A schedule ticks once per tick with two worker processes on one database (and one
 * broker when AMQP_URL is set): both relays claim due ticks and both run the tick
 * consumer, and every tick message is also delivered a second time (as a broker does
 * after a lost ack), so the two workers race for it. Each tick must start exactly one
 * execution.
 */

const PLUGINS = ['agents', 'flows', 'app-schedule', 'app-logic'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const TRANSPORT = process.env.AMQP_URL ? { amqpUrl: process.env.AMQP_URL } : {};
const SHARED = { ...TRANSPORT, busPollIntervalMs: 100 };

let api: TestKernel;
let worker: TestKernel;
beforeAll(async () => {
  api = await startTestKernel({ plugins: PLUGINS, role: 'start', config: SHARED });
  worker = await startTestKernel({
    plugins: PLUGINS,
    role: 'worker',
    tenant: 'worker',
    config: { ...SHARED, databaseUrl: api.kernel.config.core.databaseUrl, busNamespace: api.kernel.config.core.busNamespace },
  });
});
afterAll(async () => {
  await worker?.stop();
  await api?.stop();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> => api.kernel.orm.em.fork().getConnection().execute(query, params);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delivers each pending tick a second time: a copy of its outbox row with the same message id. */
async function duplicatePendingTicks(versionUuid: string): Promise<number> {
  const rows = await sql(
    `insert into bus_outbox (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at) ` +
      `select gen_random_uuid(), o.message_id, o.topic, o.payload, o.headers, o.tenant_uuid, null, o.consumer, o.attempt, o.due_at, clock_timestamp() ` +
      `from bus_outbox o where o.topic = 'schedule.tick' and o.payload->>'version_uuid' = ? ` +
      `and (select count(*) from bus_outbox d where d.message_id = o.message_id) = 1 returning message_id`,
    [versionUuid],
  );
  return rows.length;
}

it('schedule ticks once with two workers: one execution per tick, even when a tick is delivered twice', async () => {
  const flow = (await api.api.post('/api/v1/flow').send({ name: 'Every second' }).expect(201)).body.data.uuid;
  await api.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'schedule', trigger_key: 'every', config: { amount: 1, unit: 'seconds' } }).expect(201);
  await api.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { tick: '{{step1.tick_at}}' } } }).expect(201);
  const version = (await api.api.post(`/api/v1/flow/${flow}/deploy`).expect(200)).body.data.live_version.uuid;

  let duplicated = 0;
  const runUntil = Date.now() + 6000;
  while (Date.now() < runUntil) {
    duplicated += await duplicatePendingTicks(version);
    await sleep(50);
  }
  await api.api.post(`/api/v1/flow/${flow}/undeploy`).expect(200);
  // Let the last tick and its execution finish: no tick left to deliver, no execution still queued or running
  // (a fixed wait here let a busy machine count an execution not finished yet).
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [{ ticks, unfinished }] = await sql(
      `select (select count(*)::int from bus_outbox where topic = 'schedule.tick' and payload->>'version_uuid' = ?) as ticks, ` +
        `(select count(*)::int from flow_executions where flow_uuid = ? and status in ('queued', 'running')) as unfinished`,
      [version, flow],
    );
    if (ticks === 0 && unfinished === 0) break;
    if (Date.now() > deadline) throw new Error(`the schedule did not settle: ${ticks} tick(s) left, ${unfinished} execution(s) unfinished`);
    await sleep(50);
  }

  const perTick: Array<{ tick_at: string; executions: number; succeeded: number }> = await sql(
    `select trigger_event->>'tick_at' as tick_at, count(*)::int as executions, count(*) filter (where status = 'succeeded')::int as succeeded ` +
      `from flow_executions where flow_uuid = ? group by 1 order by 1`,
    [flow],
  );
  expect(duplicated).toBeGreaterThanOrEqual(4);
  expect(perTick.length).toBeGreaterThanOrEqual(4);
  expect(perTick.filter((tick) => tick.executions !== 1)).toEqual([]);
  expect(perTick.every((tick) => tick.succeeded === 1)).toBe(true);
  // Ticks sit on the one-second grid from the first.
  const times = perTick.map((tick) => new Date(tick.tick_at).getTime());
  for (const time of times) expect((time - times[0]) % 1000).toBe(0);
  // Every delivered copy was recognised as a message already handled: none failed or was dead-lettered.
  expect(await sql(`select 1 from bus_dead_letters where topic = 'schedule.tick'`)).toEqual([]);
});
