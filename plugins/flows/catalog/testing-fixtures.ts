import type { ResourceFixtures } from '../../../core/testing';

/**
 * A connection needs a `connect` app and credentials its `auth.schema` accepts; none of
 * the built-in apps is one, so this takes the first installed connect app whose auth
 * schema gives an example (`examples[0]`) that its connection test, if any, accepts (an
 * example's service is rarely reachable), such as the test apps of
 * test/plugins/flows/catalog/fixture-apps.ts.
 */
export const fixtures: ResourceFixtures = {
  'flows.connection': async ({ api }) => {
    const apps: Array<{ uid: string }> = (await api.get('/api/v1/flow/apps?category=connect').expect(200)).body.data;
    for (const { uid } of apps) {
      const { auth } = (await api.get(`/api/v1/flow/apps/${uid}`).expect(200)).body.data;
      const credentials = auth?.schema?.examples?.[0];
      if (credentials === undefined) continue;
      const res = await api.post('/api/v1/flow/connections').send({ app_uid: uid, label: 'sweep', credentials });
      if (res.status === 422 && res.body.errors?.credentials) continue;
      if (res.status !== 201) throw new Error(`creating a connection of "${uid}" answered ${res.status}: ${JSON.stringify(res.body)}`);
      // `:uid`: the app's key in the path of routes that act on this connection (`POST /api/v1/flow/apps/:uid/options`).
      return { 'flows.connection': res.body.data.uuid, ':uid': uid };
    }
    throw new Error('no installed connect app gives an example of its credentials (auth.schema.examples) that its connection test accepts, so no flows.connection can be made');
  },
};
