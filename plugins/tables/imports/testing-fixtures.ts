import type { ResourceFixtures } from '../../../core/testing';

export const fixtures: ResourceFixtures = {
  /** An import of a tiny pasted CSV, and the table it creates. */
  'tables.import': async (owner) => {
    const res = await owner.api.post('/api/v1/data/import/copypaste').send({ text: 'name,price\nwidget,3\n', name: 'sweep' }).expect(202);
    return { 'tables.import': res.body.data.uuid, 'tables.table': res.body.data.table_uuid };
  },
};
