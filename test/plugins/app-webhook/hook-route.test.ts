import path from 'node:path';
import supertest from 'supertest';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';

const PLUGINS = ['agents', 'flows', 'app-webhook', 'app-logic'].map((id) => path.resolve(__dirname, '../../../plugins', id));

// `serve` runs no consumers: what a hook call queued stays in the outbox for the test to read.
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, role: 'serve' });
});
afterAll(() => kit?.stop());

const sql = (query: string, params: unknown[] = []): Promise<any[]> => kit.kernel.orm.em.fork().getConnection().execute(query, params);

/** A flow with a catch_hook trigger (and one step after it); returns its uuid and the path of its hook URL. */
async function hookFlow(owner: TestTenant = kit, { deploy = true } = {}) {
  const flow = (await owner.api.post('/api/v1/flow').send({ name: 'Orders' }).expect(201)).body.data.uuid;
  const trigger = (await owner.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook' }).expect(201)).body.data;
  await owner.api
    .post(`/api/v1/flow/${flow}/steps`)
    .send({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { id: '{{step1.body.id}}' } } })
    .expect(201);
  if (deploy) await owner.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return { flow: flow as string, hookPath: new URL(trigger.config.hook_url).pathname };
}

/** A client on the tenant's host without any token: hooks are called by outside services. */
const anonymous = (owner: TestTenant = kit) => {
  const host = `${owner.tenant.slug}.${kit.kernel.config.core.baseDomain}`;
  return { post: (url: string) => supertest(kit.url).post(url).set('Host', host) };
};

describe('POST /api/v1/hooks/{token}', () => {
  it('creating the step gives it a read-only hook_url on the tenant host with a 256-bit token', async () => {
    const flow = (await kit.api.post('/api/v1/flow').send({ name: 'x' }).expect(201)).body.data.uuid;
    const step = (await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook', config: { hook_url: 'https://evil.example/x' } }).expect(201)).body
      .data;
    expect(step).toMatchObject({ status: 'ready', config: { hook_url: expect.stringMatching(/^http:\/\/acme\.localhost(:\d+)?\/api\/v1\/hooks\/[A-Za-z0-9_-]{43}$/) } });
  });

  it('on a live flow, answers 202 with the execution it queued: the row and its bus message written together', async () => {
    const { flow, hookPath } = await hookFlow();
    const res = await anonymous()
      .post(`${hookPath}?source=shop&tag=a&tag=b`)
      .set('User-Agent', 'Shop/1.0')
      .set('X-Request-Id', 'req-7')
      .send({ id: 1001, items: [{ sku: 'A-1' }] })
      .expect(202);
    expect(res.body).toEqual({ success: true, data: { execution_uuid: expect.any(String) } });
    const execution = res.body.data.execution_uuid;

    const [row] = await sql('select flow_uuid, status, trigger_event from flow_executions where uuid = ?', [execution]);
    expect(row).toEqual({
      flow_uuid: flow,
      status: 'queued',
      trigger_event: {
        body: { id: 1001, items: [{ sku: 'A-1' }] },
        query: { source: 'shop', tag: ['a', 'b'] },
        headers: { 'content-type': 'application/json', 'user-agent': 'Shop/1.0', 'x-request-id': 'req-7' },
      },
    });
    const messages = await sql(`select tenant_uuid from bus_outbox where topic = 'flows.execution.run' and payload->>'execution_uuid' = ?`, [execution]);
    expect(messages).toEqual([{ tenant_uuid: kit.tenant.uuid }]);
  });

  it('accepts any JSON value as the body, and no body as {}', async () => {
    const { hookPath } = await hookFlow();
    for (const body of [[1, 2, 3], 'text', 42, null]) {
      const res = await anonymous().post(hookPath).set('Content-Type', 'application/json').send(JSON.stringify(body)).expect(202);
      const [row] = await sql('select trigger_event from flow_executions where uuid = ?', [res.body.data.execution_uuid]);
      expect(row.trigger_event.body).toEqual(body);
    }
    const empty = await anonymous().post(hookPath).expect(202);
    const [row] = await sql('select trigger_event from flow_executions where uuid = ?', [empty.body.data.execution_uuid]);
    expect(row.trigger_event).toEqual({ body: {}, query: {}, headers: {} });
  });

  it('keeps credential-looking headers out of the trigger output (and so out of history)', async () => {
    const { hookPath } = await hookFlow();
    const res = await anonymous()
      .post(hookPath)
      .set('Authorization', 'Bearer secret-1')
      .set('Cookie', 'session=secret-2')
      .set('X-Api-Key', 'secret-3')
      .set('X-Auth-Token', 'secret-4')
      .set('X-Hub-Signature-256', 'sha256=secret-5')
      .set('X-Github-Event', 'push')
      .set('Accept', 'application/json')
      .send({})
      .expect(202);
    const [row] = await sql('select trigger_event from flow_executions where uuid = ?', [res.body.data.execution_uuid]);
    expect(row.trigger_event.headers).toEqual({ 'content-type': 'application/json', 'x-github-event': 'push' });
    expect(JSON.stringify(row)).not.toMatch(/secret-/);
  });

  it('answers 404, queuing nothing, for an unknown token and for a flow never deployed, undeployed or deleted', async () => {
    const count = async () => (await sql('select count(*)::int as n from flow_executions'))[0].n;
    const before = await count();
    const notFound = { success: false, message: 'No live flow listens on this hook', data: [] };
    await anonymous().post('/api/v1/hooks/unknown-token').send({}).expect(404, notFound);

    const draft = await hookFlow(kit, { deploy: false });
    await anonymous().post(draft.hookPath).send({}).expect(404, notFound);

    const undeployed = await hookFlow();
    await kit.api.post(`/api/v1/flow/${undeployed.flow}/undeploy`).expect(200);
    await anonymous().post(undeployed.hookPath).send({}).expect(404, notFound);

    const deleted = await hookFlow();
    await kit.api.delete(`/api/v1/flow/${deleted.flow}`).expect(200);
    await anonymous().post(deleted.hookPath).send({}).expect(404, notFound);
    expect(await count()).toBe(before);
  });

  it('answers 404 for a live flow’s token on another tenant’s host, and for a host that is no tenant', async () => {
    const { hookPath } = await hookFlow();
    const other = await kit.createTenant();
    await anonymous(other).post(hookPath).send({}).expect(404);
    await supertest(kit.url).post(hookPath).set('Host', `nobody.${kit.kernel.config.core.baseDomain}`).send({}).expect(404);
    await anonymous().post(hookPath).send({}).expect(202);
  });

  it('refuses a body that is not JSON (415) or larger than the JSON body limit (413)', async () => {
    const { hookPath } = await hookFlow();
    await anonymous().post(hookPath).set('Content-Type', 'text/plain').send('id=1').expect(415);
    await anonymous().post(hookPath).set('Content-Type', 'application/json').send(JSON.stringify({ blob: 'x'.repeat(1024 * 1024) })).expect(413);
  });
});
