import path from 'node:path';
import { startTestKernel, type TestKernel } from 'switchboard/core/testing';

/** This plugin, loaded from its folder through its plugin.json, as an installation loads it. */
const PLUGIN = path.resolve(__dirname, '..');

describe('the acme-leads plugin', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [PLUGIN], config: { 'acme-leads': { greeting: 'Welcome' } } });
  });
  afterAll(() => kit?.stop());

  it('greets the tenant of the request with its configured greeting', async () => {
    await kit.api.get('/api/v1/acme-leads/hello').expect(200, { data: { message: 'Welcome, acme', tenant: 'acme' } });
    const other = await kit.createTenant('other-shop');
    await other.api.get('/api/v1/acme-leads/hello').expect(200, { data: { message: 'Welcome, other-shop', tenant: 'other-shop' } });
  });

  it('answers no one without a token of the tenant', async () => {
    await kit.client({ host: `acme.${kit.kernel.config.core.baseDomain}` }).get('/api/v1/acme-leads/hello').expect(401);
  });
});
