import supertest from 'supertest';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { valueOf } from '../../../core/metrics/metrics-helpers';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, finished, fire } from './engine-helpers';

/** The flows plugin counts executions as they end, through the kernel's metrics service. */
let kit: TestKernel;
const token = 'flows-metrics-token';

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: { ...TRANSPORT, busPollIntervalMs: 50, metricsToken: token } });
});
afterAll(async () => {
  await kit?.stop();
});

it('counts finished executions by status at /metrics', async () => {
  const scrape = async () => (await supertest(kit.url).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200)).text;
  const name = 'switchboard_flows_executions_finished_total';
  const fine = await deployFlow(kit, [{ name: 'trigger' }, { name: 'echo', action: 'echo', config: { value: 'hi' } }]);
  const broken = await deployFlow(kit, [{ name: 'trigger' }, { name: 'boom', action: 'fail', config: { message: 'boom' } }]);

  const succeeded = await fire(kit.api, fine.versionUuid, [{}, {}]);
  const failed = await fire(kit.api, broken.versionUuid, [{}]);
  for (const uuid of succeeded) expect((await finished(kit, uuid)).status).toBe('succeeded');
  for (const uuid of failed) expect((await finished(kit, uuid)).status).toBe('failed');

  const text = await scrape();
  expect(valueOf(text, name, { status: 'succeeded' })).toBe(2);
  expect(valueOf(text, name, { status: 'failed' })).toBe(1);
});
