import type { ResourceFixtures } from '../../../core/testing';
import { createSweepTable } from '../tables/testing-fixtures';

export const fixtures: ResourceFixtures = {
  'tables.record': async (owner) => {
    const { table } = await createSweepTable(owner);
    const res = await owner.api.post(`/api/v1/data/${table}/records`).send({ values: { name: 'Widget', price: 9.5 } }).expect(201);
    return { 'tables.table': table, 'tables.record': res.body.data.uuid };
  },
};
