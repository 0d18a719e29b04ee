import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, finished, uploadRequest } from './import-test-kit';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES], config: { uploadLimit: '1kb' } });
});
afterAll(() => kit?.stop());

describe('the upload limit', () => {
  it('answers 413 for a file over it, and creates nothing', async () => {
    const big = `name\n${'x'.repeat(40)}\n`.repeat(40);
    const res = await uploadRequest(kit.api, big, 'big.csv').expect(413);
    expect(res.body).toMatchObject({ success: false });
    const tables = await kit.api.get('/api/v1/data/tables').expect(200);
    expect(tables.body.data.pagination.total).toBe(0);
  });

  it('answers 413 for a file far over it, while the client is still sending', async () => {
    const huge = Buffer.alloc(4 * 1024 * 1024, 'a\n');
    const res = await uploadRequest(kit.api, huge, 'huge.csv').expect(413);
    expect(res.body).toMatchObject({ success: false });
  });

  it('takes a file under it', async () => {
    const res = await uploadRequest(kit.api, 'name\nsmall\n', 'small.csv').expect(202);
    expect((await finished(kit.api, res.body.data.uuid)).status).toBe('completed');
  });
});
