import { startTestKernel, type TestKernel } from '../../../core/testing';
import { ISO, PLUGINS } from './contacts-test-helpers';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS });
});
afterAll(() => kit?.stop());

const NOT_FOUND = { success: false, message: 'Contact setting not found', data: [] };

describe('contact settings', () => {
  it('start empty; PUT sets any JSON value, PUT again replaces it; GET reads one or all, by key', async () => {
    const tenant = await kit.createTenant();
    expect((await tenant.api.get('/api/v1/contact-settings').expect(200)).body).toEqual({ success: true, data: { items: [] } });

    const first = await tenant.api.put('/api/v1/contact-settings/approvals.auto_approve').send({ value: { b_company: true } }).expect(200);
    expect(first.body).toEqual({ data: { key: 'approvals.auto_approve', value: { b_company: true }, updated_at: expect.stringMatching(ISO) } });
    const replaced = await tenant.api.put('/api/v1/contact-settings/approvals.auto_approve').send({ value: ['x', 1, false] }).expect(200);
    expect(replaced.body.data.value).toEqual(['x', 1, false]);
    expect(replaced.body.data.updated_at >= first.body.data.updated_at).toBe(true);
    for (const [key, value] of [
      ['default_stage', 'lead'],
      ['max_age', 30],
      ['enabled', false],
    ] as const) {
      await tenant.api.put(`/api/v1/contact-settings/${key}`).send({ value }).expect(200);
    }

    expect((await tenant.api.get('/api/v1/contact-settings/max_age').expect(200)).body.data).toEqual({ key: 'max_age', value: 30, updated_at: expect.stringMatching(ISO) });
    const all = (await tenant.api.get('/api/v1/contact-settings').expect(200)).body.data.items;
    expect(all.map((s: any) => [s.key, s.value])).toEqual([
      ['approvals.auto_approve', ['x', 1, false]],
      ['default_stage', 'lead'],
      ['enabled', false],
      ['max_age', 30],
    ]);
  });

  it('DELETE removes a setting (deleted envelope); an unset key is a 404 "Contact setting not found"', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.put('/api/v1/contact-settings/temp').send({ value: 1 }).expect(200);
    expect((await tenant.api.delete('/api/v1/contact-settings/temp').expect(200)).body).toEqual({ success: true, message: 'Contact setting deleted', data: { deleted: true } });
    expect((await tenant.api.get('/api/v1/contact-settings/temp').expect(404)).body).toEqual(NOT_FOUND);
    expect((await tenant.api.delete('/api/v1/contact-settings/temp').expect(404)).body).toEqual(NOT_FOUND);
  });

  it('refuses keys off the pattern, a missing value and a null value with 422', async () => {
    for (const key of ['Bad', '1x', 'a..b', 'a.', 'with-dash']) {
      const res = await kit.api.put(`/api/v1/contact-settings/${key}`).send({ value: 1 });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['key']);
    }
    expect(Object.keys((await kit.api.put('/api/v1/contact-settings/ok').send({}).expect(422)).body.errors)).toEqual(['value']);
    expect((await kit.api.put('/api/v1/contact-settings/ok').send({ value: null }).expect(422)).body.errors).toEqual({ value: ['must not be null (delete the setting instead)'] });
    expect(Object.keys((await kit.api.put('/api/v1/contact-settings/ok').send({ value: 1, extra: 2 }).expect(422)).body.errors)).toEqual(['extra']);
  });

  it('a tenant’s PUT of a key another tenant has sets its own value and never touches the other’s', async () => {
    const owner = await kit.createTenant();
    const other = await kit.createTenant();
    await owner.api.put('/api/v1/contact-settings/shared_key').send({ value: 'mine' }).expect(200);
    await other.api.get('/api/v1/contact-settings/shared_key').expect(404);
    await other.api.put('/api/v1/contact-settings/shared_key').send({ value: 'theirs' }).expect(200);
    await other.api.delete('/api/v1/contact-settings/shared_key').expect(200);
    expect((await owner.api.get('/api/v1/contact-settings/shared_key').expect(200)).body.data.value).toBe('mine');
  });

  it('concurrent first PUTs of one key all succeed, leaving one setting', async () => {
    const tenant = await kit.createTenant();
    const results = await Promise.all([1, 2, 3, 4, 5].map((value) => tenant.api.put('/api/v1/contact-settings/raced').send({ value })));
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await tenant.api.get('/api/v1/contact-settings').expect(200)).body.data.items).toHaveLength(1);
  });
});
