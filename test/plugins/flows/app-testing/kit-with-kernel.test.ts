import path from 'node:path';
import { coreServices, definePlugin, EgressRefusedError, Type } from 'switchboard/core';
import { startTestKernel, type TestKernel } from 'switchboard/core/testing';
import { contributeFlowApp, defineAction, defineFlowApp } from 'switchboard/flows';
import { loadOptions, runAction, useVendorServer } from 'switchboard/flows/testing';
import { httpApp } from '../../../../plugins/app-http';
import { logicApp } from '../../../../plugins/app-logic';

/**
 * The kit with a test kernel: app code runs as the kit's tenant, in its database, through
 * its egress client (which a local vendor server answers), with the deps its plugin got.
 */
const PLUGINS = ['agents', 'flows', 'app-http', 'app-logic'].map((id) => path.resolve(__dirname, '../../../../plugins', id));

// A partner's app whose action names a dep and uses the database.
const Whoami = defineAction({
  key: 'whoami',
  name: 'Who am I',
  description: 'The tenant the step runs for, and a read of the database',
  input: Type.Object({}, { additionalProperties: false }),
  outputSample: { tenant: 'acme', tenants: 1 },
  deps: { tenants: coreServices.tenant },
  async run({ deps, em }) {
    const [row] = await em.getConnection().execute<Array<{ count: string }>>(`select count(*) as count from tenants where uuid = ?`, [deps.tenants.require().uuid]);
    return { tenant: deps.tenants.require().slug, tenants: Number(row.count) };
  },
});
const probeApp = defineFlowApp({ uid: 'kit_probe', name: 'Kit probe', description: 'Reads', icon: 'data:,', category: 'builtin', deps: { tenants: coreServices.tenant }, actions: [Whoami] });
const probe = definePlugin({ id: 'kit-probe', dependsOn: ['flows'], ...contributeFlowApp(probeApp) });

interface Shop {
  orders: Array<{ sku: string; key: string }>;
}

const shop = useVendorServer<Shop>(
  {
    'POST /orders': (request, state) => {
      state.orders.push({ sku: request.json<{ sku: string }>().sku, key: String(request.headers['idempotency-key']) });
      return { status: 201, body: { id: state.orders.length } };
    },
  },
  { state: { orders: [] } },
);

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...PLUGINS, probe], role: 'serve' });
});
afterAll(() => kit?.stop());

describe('the flow-app kit with a test kernel', () => {
  it('calls a vendor server through the kit’s egress client, with the step’s Idempotency-Key', async () => {
    const run = await runAction(httpApp, 'request', { method: 'POST', url: `${shop.url}/orders`, body: { sku: 'A-1' } }, { kit });
    expect(run.output).toMatchObject({ status: 201, body: { id: 1 } });
    expect(shop.state.orders).toEqual([{ sku: 'A-1', key: run.idempotencyKey }]);
  });

  it('goes through the kit’s egress policy: a cloud metadata address is refused', async () => {
    await expect(runAction(httpApp, 'request', { method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' }, { kit })).rejects.toBeInstanceOf(EgressRefusedError);
  });

  it('runs as the kit’s tenant (or the one given), in its database, with the deps the app’s plugin provided', async () => {
    expect((await runAction(probeApp, 'whoami', {}, { kit })).output).toEqual({ tenant: 'acme', tenants: 1 });
    const other = await kit.createTenant('other-shop');
    expect((await runAction(probeApp, 'whoami', {}, { kit, tenant: other.tenant })).output).toEqual({ tenant: 'other-shop', tenants: 1 });
  });

  it('without a kit, an app that names deps needs them given', async () => {
    await expect(runAction(probeApp, 'whoami', {})).rejects.toThrow('flow app "kit_probe" names deps (tenants): pass { deps } or a { kit } whose plugins contribute it');
  });

  it('loads an option list with the kit as the options route answers it through HTTP', async () => {
    const { result } = await loadOptions(logicApp, 'delay_units', {}, { kit });
    const res = await kit.api.post('/api/v1/flow/apps/logic/options').send({ kind: 'delay_units', params: {} }).expect(200);
    expect('options' in result && result.options.map(({ label, value }) => ({ label, value }))).toEqual(res.body.data);
  });
});
