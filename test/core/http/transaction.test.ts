import path from 'node:path';
import { ConflictError, coreServices, definePlugin, defineRoute, Type } from '../../../core';
import { startTestKernel } from '../../../core/testing';
import { Note } from '../../../examples/plugins/notes/note.entity';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');

describe('one transaction per request', () => {
  it('a handler that fails after writing leaves nothing behind; one that succeeds commits everything', async () => {
    const writer = definePlugin({
      id: 'writer',
      dependsOn: ['notes'],
      deps: { http: coreServices.http, orm: coreServices.orm },
      init({ http, orm }) {
        http.route(
          defineRoute({
            method: 'POST',
            path: '/api/v1/write-two',
            summary: 'Writes two notes, then maybe fails',
            body: Type.Object({ fail: Type.Boolean() }, { additionalProperties: false }),
            handler: async ({ body, em }) => {
              em.create(Note, { title: 'first' });
              await em.flush();
              // The plugin-level EntityManager is the same request-scoped one.
              orm.em.create(Note, { title: 'second' });
              await orm.em.flush();
              if (body.fail) throw new ConflictError('changed my mind');
              return { data: 'ok' };
            },
          }),
        );
      },
    });
    const kit = await startTestKernel({ plugins: [NOTES, writer] });
    try {
      await kit.api.post('/api/v1/write-two').send({ fail: true }).expect(409);
      expect((await kit.api.get('/api/v1/notes').expect(200)).body.data.pagination.total).toBe(0);
      await kit.api.post('/api/v1/write-two').send({ fail: false }).expect(200);
      expect((await kit.api.get('/api/v1/notes').expect(200)).body.data.pagination.total).toBe(2);
    } finally {
      await kit.stop();
    }
  });
});
