import path from 'node:path';
import { coreServices, definePlugin, defineRoute, Type } from '../../../../core';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { notesDirectoryRef } from '../../../../examples/plugins/notes';

const NOTES = path.resolve(__dirname, '../../../../examples/plugins/notes');
const WORD_COUNT = path.resolve(__dirname, '../../../../examples/plugins/notes-word-count');

describe('notes example plugin', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [NOTES, WORD_COUNT], config: { notes: { maxPerTenant: 3 } } });
  });
  afterAll(() => kit?.stop());

  it('creates, reads, changes and deletes a note, with the word count contributed by another plugin', async () => {
    const created = await kit.api.post('/api/v1/notes').send({ title: 'Call back', body: 'ask about the renewal' }).expect(201);
    const note = created.body.data;
    expect(note).toMatchObject({ title: 'Call back', body: 'ask about the renewal', extras: { word_count: 4 } });

    await kit.api.get(`/api/v1/notes/${note.uuid}`).expect(200, { data: note });
    const changed = await kit.api.patch(`/api/v1/notes/${note.uuid}`).send({ ...note, body: 'agreed' }).expect(200);
    expect(changed.body.data).toMatchObject({ uuid: note.uuid, title: 'Call back', body: 'agreed', extras: { word_count: 1 } });

    await kit.api.delete(`/api/v1/notes/${note.uuid}`).expect(200, { success: true, message: 'Note deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/notes/${note.uuid}`).expect(404, { success: false, message: 'Note not found', data: [] });
  });

  it('pages lists newest first, and enforces its config slice (maxPerTenant = 3) with 409', async () => {
    const tenant = await kit.createTenant();
    for (const title of ['one', 'two', 'three']) await tenant.api.post('/api/v1/notes').send({ title }).expect(201);
    await tenant.api.post('/api/v1/notes').send({ title: 'four' }).expect(409);
    const page = await tenant.api.get('/api/v1/notes?per_page=2&page=2').expect(200);
    expect(page.body.data.items.map((n: { title: string }) => n.title)).toEqual(['one']);
    expect(page.body.data.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3, has_more: false });
    await tenant.api.get('/api/v1/notes?per_page=101').expect(422);
  });

  it('a failed write leaves nothing behind (one transaction per request)', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.post('/api/v1/notes').send({ title: 'x'.repeat(201) }).expect(422);
    const list = await tenant.api.get('/api/v1/notes').expect(200);
    expect(list.body.data.pagination.total).toBe(0);
  });
});

describe('notes without the word-count plugin', () => {
  it('has no enrichers, so no extras', async () => {
    const kit = await startTestKernel({ plugins: [NOTES] });
    try {
      const created = await kit.api.post('/api/v1/notes').send({ title: 'plain' }).expect(201);
      expect(created.body.data.extras).toEqual({});
    } finally {
      await kit.stop();
    }
  });
});

describe("the notes plugin's service", () => {
  it('is available to a plugin that depends on notes, scoped to the current tenant', async () => {
    const counter = definePlugin({
      id: 'note-counter',
      dependsOn: ['notes'],
      deps: { http: coreServices.http, notes: notesDirectoryRef },
      init({ http, notes }) {
        http.route(defineRoute({ method: 'GET', path: '/api/v1/note-count', summary: 'Count', response: Type.Object({ data: Type.Integer() }), handler: async () => ({ data: await notes.count() }) }));
      },
    });
    const kit = await startTestKernel({ plugins: [NOTES, counter] });
    try {
      await kit.api.post('/api/v1/notes').send({ title: 'a' }).expect(201);
      const other = await kit.createTenant();
      await other.api.get('/api/v1/note-count').expect(200, { data: 0 });
      await kit.api.get('/api/v1/note-count').expect(200, { data: 1 });
    } finally {
      await kit.stop();
    }
  });
});
