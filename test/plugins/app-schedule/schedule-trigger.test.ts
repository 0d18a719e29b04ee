import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const PLUGINS = ['agents', 'flows', 'app-schedule', 'app-logic'].map((id) => path.resolve(__dirname, '../../../plugins', id));

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(() => kit?.stop());

const sql = (query: string, params: unknown[] = []): Promise<any[]> => kit.kernel.orm.em.fork().getConnection().execute(query, params);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pendingTicks = (versionUuid: string) =>
  sql(`select payload, dedupe_key, due_at from bus_outbox where topic = 'schedule.tick' and payload->>'version_uuid' = ?`, [versionUuid]);
const executionsOf = (flowUuid: string): Promise<Array<{ trigger_event: { tick_at: string; fired_at: string } }>> =>
  sql('select trigger_event from flow_executions where flow_uuid = ? order by created_at', [flowUuid]);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

/** A flow started by `trigger` with one logic step; returns the flow and, when deployed, the response. */
async function scheduleFlow(trigger: 'every' | 'cron', config: Record<string, unknown>) {
  const flow = (await kit.api.post('/api/v1/flow').send({ name: `schedule ${trigger}` }).expect(201)).body.data.uuid as string;
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'schedule', trigger_key: trigger, config }).expect(201);
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { at: '{{step1.tick_at}}' } } }).expect(201);
  return { flow, deploy: () => kit.api.post(`/api/v1/flow/${flow}/deploy`) };
}

describe('schedule triggers', () => {
  it('deploy publishes the first tick, one interval ahead, keyed by the version', async () => {
    const { deploy } = await scheduleFlow('every', { amount: 5, unit: 'minutes' });
    const before = Date.now();
    const version = (await deploy().expect(200)).body.data.live_version.uuid;
    const [tick, ...others] = await pendingTicks(version);
    expect(others).toEqual([]);
    expect(tick).toMatchObject({ dedupe_key: `version:${version}`, payload: { version_uuid: version, trigger: 'every' } });
    expect(new Date(tick.payload.tick_at).getTime()).toBe(new Date(tick.due_at).getTime());
    expect(new Date(tick.due_at).getTime() - before).toBeGreaterThanOrEqual(5 * 60_000 - 1000);
    expect(new Date(tick.due_at).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
  });

  it('a cron expression or time zone that does not parse makes deploy 422 naming it, and nothing is deployed', async () => {
    const bad = await scheduleFlow('cron', { expression: '0 25 * * *', timezone: 'Europe/Madrid' });
    const res = await bad.deploy().expect(422);
    expect(res.body.errors).toEqual({ 'config.expression': [expect.stringMatching(/^is not a valid cron expression: /)] });
    const zone = await scheduleFlow('cron', { expression: '0 9 * * *', timezone: 'Europe/Atlantis' });
    expect((await zone.deploy().expect(422)).body.errors).toEqual({ 'config.timezone': ['"Europe/Atlantis" is not an IANA time zone (e.g. Europe/Madrid)'] });
    expect((await kit.api.get(`/api/v1/flow/${bad.flow}`).expect(200)).body.data).toMatchObject({ status: 'draft', live_version: null });
    expect(await sql(`select 1 from flow_versions where flow_uuid in (?, ?)`, [bad.flow, zone.flow])).toEqual([]);
  });

  it('a cron expression that is not 5 fields keeps the step a draft', async () => {
    const flow = (await kit.api.post('/api/v1/flow').send({ name: 'seconds' }).expect(201)).body.data.uuid;
    const step = await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'schedule', trigger_key: 'cron', config: { expression: '*/5 * * * * *' } }).expect(201);
    expect(step.body.data).toMatchObject({ status: 'draft', status_message: expect.stringContaining('config.expression') });
  });

  it('each tick starts one execution with {tick_at, fired_at} and schedules the next, one interval later', async () => {
    const { flow, deploy } = await scheduleFlow('every', { amount: 1, unit: 'seconds' });
    const version = (await deploy().expect(200)).body.data.live_version.uuid;
    const executions = await until(() => executionsOf(flow), (rows) => rows.length >= 3);
    const ticks = executions.map((row) => new Date(row.trigger_event.tick_at).getTime());
    expect(ticks.slice(1).map((tick, index) => tick - ticks[index])).toEqual(ticks.slice(1).map(() => 1000));
    for (const { trigger_event } of executions) expect(new Date(trigger_event.fired_at).getTime()).toBeGreaterThanOrEqual(new Date(trigger_event.tick_at).getTime());
    // One chain: a single tick waits for its time. The tick just delivered can still be in the outbox for a moment
    // (a relay deletes delivered rows a little later), so this waits for that, not for a second chain, which never ends.
    expect((await until(() => pendingTicks(version), (rows) => rows.length <= 1, 5000)).length).toBeLessThanOrEqual(1);
    await kit.api.post(`/api/v1/flow/${flow}/undeploy`).expect(200);
  });

  it('undeploy ends the chain: the pending tick is dropped when due, and no execution starts', async () => {
    const { flow, deploy } = await scheduleFlow('every', { amount: 1, unit: 'seconds' });
    const version = (await deploy().expect(200)).body.data.live_version.uuid;
    await kit.api.post(`/api/v1/flow/${flow}/undeploy`).expect(200);
    await until(() => pendingTicks(version), (rows) => rows.length === 0, 5000);
    await sleep(1500);
    expect(await executionsOf(flow)).toEqual([]);
    expect(await pendingTicks(version)).toEqual([]);
  });
});
