import type { TestTenant, ResourceFixtures } from '../../../core/testing';

/**
 * A table with the columns the record routes' body examples use (`name` text, `price`
 * number), so the sweep's calls with those examples succeed for the owner.
 */
export async function createSweepTable(owner: TestTenant): Promise<{ table: string; columns: Record<string, string> }> {
  const res = await owner.api
    .post('/api/v1/data/tables')
    .send({ name: 'sweep', columns: [{ name: 'name', data_type: 'text' }, { name: 'price', data_type: 'number' }] })
    .expect(201);
  const columns: Record<string, string> = Object.fromEntries(res.body.data.columns.map((column: { name: string; uuid: string }) => [column.name, column.uuid]));
  return { table: res.body.data.uuid, columns };
}

export const fixtures: ResourceFixtures = {
  'tables.table': async (owner) => ({ 'tables.table': (await createSweepTable(owner)).table }),
  'tables.column': async (owner) => {
    const { table, columns } = await createSweepTable(owner);
    return { 'tables.table': table, 'tables.column': columns.name };
  },
};
