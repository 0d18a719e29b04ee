import pg from 'pg';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { startVendorServer, type VendorServer } from '../../../../plugins/flows/testing-kit';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, finished, fire, stepRows } from './engine-helpers';

/**
 * Steps that call another system run in their segment's prepare, with no database
 * transaction open while the vendor answers; their result then commits with the
 * execution's progress, and the steps after them run on.
 */
let kit: TestKernel;
let vendor: VendorServer<{ openTransactions: number[] }>;
let observer: pg.Client;
let database: string;

/** Transactions of the test's database open for longer than the vendor has been waiting: only one holding on across the call could be. */
async function longTransactions(): Promise<number> {
  const { rows } = await observer.query(
    "select count(*)::int as n from pg_stat_activity where datname = $1 and xact_start is not null and xact_start < now() - interval '250 milliseconds' and pid <> pg_backend_pid()",
    [database],
  );
  return rows[0].n;
}

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: TRANSPORT });
  database = (await kit.kernel.orm.em.fork().getConnection().execute('select current_database() as name'))[0].name;
  observer = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test', database });
  await observer.connect();
  vendor = await startVendorServer<{ openTransactions: number[] }>(
    {
      // Answers after 400 ms, having looked at the database's open transactions meanwhile.
      'GET /slow': async (request, state) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        state.openTransactions.push(await longTransactions());
        return { body: { note: request.headers['x-note'] } };
      },
    },
    { state: { openTransactions: [] } },
  );
});
afterAll(async () => {
  await observer?.end();
  await vendor?.close();
  await kit?.stop();
});

describe('external steps', () => {
  it('run with no transaction open, each in a segment of its own, and pass their output on', async () => {
    const connection = await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'probe_connect', label: 'Probe', credentials: { api_key: 'k' } }).expect(201);
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'first', app: 'probe_connect', action: 'fetch', config: { url: `${vendor.url}/slow`, note: 'one' }, connectionUuid: connection.body.data.uuid },
      { name: 'between', action: 'echo', config: { value: '{{step2.body.note}}' } },
      { name: 'second', app: 'probe_connect', action: 'fetch', config: { url: `${vendor.url}/slow`, note: '{{step3.value}}-two' }, connectionUuid: connection.body.data.uuid },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    const execution = await finished(kit, uuid, 30_000);
    expect(execution).toMatchObject({ status: 'succeeded', error: null });
    const steps = await stepRows(kit, uuid);
    expect(steps.map((step) => [step.step_uuid, step.status, step.response])).toEqual([
      [flow.ids.first, 'succeeded', { body: { note: 'one' }, in_transaction: false }],
      [flow.ids.between, 'succeeded', { value: 'one' }],
      [flow.ids.second, 'succeeded', { body: { note: 'one-two' }, in_transaction: false }],
    ]);
    // Each external step started a segment: trigger segment, then one per external step.
    expect(execution.segment).toBeGreaterThanOrEqual(2);
    expect(vendor.state.openTransactions).toEqual([0, 0]);
  });
});
