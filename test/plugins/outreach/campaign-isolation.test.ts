import path from 'node:path';
import type { TestKernel } from '../../../core/testing';
import { sweepCrossTenant, type ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';
import { OUTREACH_PLUGINS, startOutreachKit } from './outreach-test-kit';

/** The routes of rules, campaigns, pools and listings (the tasks folder has its own). */
const OURS = /^\/api\/v1\/(rules|campaigns|pools|listings)(\/|$)/;

let kit: TestKernel;
beforeAll(async () => {
  kit = await startOutreachKit();
});
afterAll(() => kit?.stop());

describe('isolation of rules, campaigns, pools and listings', () => {
  it('every route of theirs that takes an id answers 404 to another tenant’s ids, and not to the owner', async () => {
    const fixtures: ResourceFixtures = Object.assign({}, ...OUTREACH_PLUGINS.map((dir) => require(path.join(dir, 'testing.ts')).fixtures));
    const results = (await sweepCrossTenant(kit, fixtures)).filter((result) => OURS.test(result.route.split(' ')[1]));
    expect(results.filter((result) => result.problem)).toEqual([]);
    // Their body and query members that name a resource are swept too (`member` set), with no problem either.
    expect(results.filter((result) => result.member && !result.skipped).length).toBeGreaterThan(0);
    expect(results.filter((result) => !result.member).map((result) => result.route).sort()).toEqual(
      [
        'GET /api/v1/rules/:uuid',
        'PATCH /api/v1/rules/:uuid',
        'DELETE /api/v1/rules/:uuid',
        'GET /api/v1/campaigns/:uuid',
        'PATCH /api/v1/campaigns/:uuid',
        'DELETE /api/v1/campaigns/:uuid',
        'POST /api/v1/campaigns/:uuid/activate',
        'POST /api/v1/campaigns/:uuid/pause',
        'POST /api/v1/campaigns/:uuid/complete',
        'GET /api/v1/pools/:uuid',
        'PATCH /api/v1/pools/:uuid',
        'DELETE /api/v1/pools/:uuid',
        'POST /api/v1/pools/:uuid/contacts',
        'GET /api/v1/pools/:uuid/contacts',
        'DELETE /api/v1/pools/:uuid/contacts/:contact_uuid',
        'GET /api/v1/listings/:uuid',
        'PATCH /api/v1/listings/:uuid',
        'DELETE /api/v1/listings/:uuid',
        'POST /api/v1/listings/:uuid/contacts',
        'GET /api/v1/listings/:uuid/contacts',
      ].sort(),
    );
  });

  it('lists show only the tenant’s own rules, campaigns, pools and listings', async () => {
    const owner = await kit.createTenant();
    const ids = Object.assign(
      {},
      ...(await Promise.all(['outreach.rule', 'outreach.pool', 'outreach.listing'].map((kind) => require('../../../plugins/outreach/testing').fixtures[kind](owner, kit)))),
    );
    const stranger = await kit.createTenant();
    for (const list of ['/api/v1/rules', '/api/v1/campaigns', '/api/v1/pools', '/api/v1/listings']) {
      expect((await owner.api.get(list).expect(200)).body.data.items).toHaveLength(1);
      expect((await stranger.api.get(list).expect(200)).body.data.items).toEqual([]);
    }
    await stranger.api.get(`/api/v1/pools?campaign_uuid=${ids['outreach.campaign']}`).expect(200, {
      success: true,
      data: { items: [], pagination: { current_page: 1, per_page: 25, total: 0, last_page: 1, from: null, to: null, has_more: false } },
    });
  });
});
