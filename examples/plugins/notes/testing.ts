import type { ResourceFixtures } from 'switchboard/core/testing';

/** How the cross-tenant sweep makes this plugin's resources. */
export const fixtures: ResourceFixtures = {
  'notes.note': async ({ api }) => {
    const res = await api.post('/api/v1/notes').send({ title: 'sweep' }).expect(201);
    return { 'notes.note': res.body.data.uuid };
  },
};
