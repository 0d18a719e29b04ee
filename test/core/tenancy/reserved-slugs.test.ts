import { startTestKernel, type TestKernel } from '../../../core/testing';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ config: { reservedSlugs: ['www', 'admin', 'status'] } });
});
afterAll(() => kit?.stop());

describe('reserved tenant slugs', () => {
  it('refuses a slug the infrastructure uses with 422 naming the member, over the admin API and the directory alike', async () => {
    const res = await kit.admin.post('/admin/v1/tenants').send({ slug: 'www' }).expect(422);
    expect(res.body.errors).toEqual({ slug: [expect.stringContaining('is reserved')] });
    await expect(kit.kernel.tenants.createTenant({ slug: 'status' })).rejects.toMatchObject({ status: 422 });
    await kit.admin.get('/admin/v1/tenants/www/tokens').expect(404);
  });

  it('takes any other slug', async () => {
    await kit.admin.post('/admin/v1/tenants').send({ slug: 'wwwx' }).expect(201);
  });
});
