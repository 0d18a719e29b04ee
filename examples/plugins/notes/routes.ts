import {
  ConflictError,
  DataEnvelope,
  DeletedEnvelope,
  ListEnvelope,
  NotFoundError,
  PageQuery,
  ReadOnly,
  ResourceId,
  Timestamp,
  Type,
  Uuid,
  defineRoute,
  deleted,
  findByUuid,
  pageOf,
  pageWindow,
  type HttpService,
} from 'switchboard/core';
import type { NoteEnricher } from './note-enrichers';
import { Note } from './note.entity';

const NoteSchema = Type.Object({
  uuid: ReadOnly(Uuid()),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  body: Type.String({ maxLength: 100_000 }),
  extras: ReadOnly(Type.Record(Type.String(), Type.Unknown())),
  created_at: ReadOnly(Timestamp()),
  updated_at: ReadOnly(Timestamp()),
});

const NoteWrite = Type.Object(
  { ...NoteSchema.properties, title: Type.Optional(NoteSchema.properties.title), body: Type.Optional(NoteSchema.properties.body) },
  { additionalProperties: false },
);
const NoteCreate = Type.Object(
  { ...NoteWrite.properties, title: NoteSchema.properties.title },
  { additionalProperties: false, examples: [{ title: 'Call back', body: 'Ask about the renewal.' }] },
);
const NoteParams = Type.Object({ uuid: ResourceId('notes.note') });

const toJson = (note: Note) => ({
  uuid: note.uuid,
  title: note.title,
  body: note.body,
  extras: note.extras,
  created_at: note.createdAt.toISOString(),
  updated_at: note.updatedAt.toISOString(),
});

export function registerNoteRoutes(http: HttpService, enrichers: readonly NoteEnricher[], maxPerTenant: number): void {
  const enrich = (note: Note) => {
    note.extras = Object.fromEntries(enrichers.map((e) => [e.key, e.enrich({ title: note.title, body: note.body })]));
  };

  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/notes',
      summary: 'Create a note',
      tags: ['notes'],
      body: NoteCreate,
      status: 201,
      errors: [409],
      response: DataEnvelope(NoteSchema),
      handler: async ({ body, em }) => {
        if ((await em.count(Note)) >= maxPerTenant) throw new ConflictError(`A tenant may keep at most ${maxPerTenant} notes`);
        const note = em.create(Note, { title: body.title, body: body.body ?? '' });
        enrich(note);
        await em.flush();
        return { data: toJson(note) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/notes',
      summary: 'List notes, newest first',
      tags: ['notes'],
      query: PageQuery(),
      response: ListEnvelope(NoteSchema),
      handler: async ({ query, em }) => {
        const [notes, total] = await em.findAndCount(Note, {}, { orderBy: { uuid: 'desc' }, ...pageWindow(query) });
        return pageOf(notes.map(toJson), total, query);
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/notes/:uuid',
      summary: 'Read a note',
      tags: ['notes'],
      params: NoteParams,
      errors: [404],
      response: DataEnvelope(NoteSchema),
      handler: async ({ params, em }) => {
        const note = await findByUuid(em, Note, params.uuid);
        if (!note) throw new NotFoundError('Note not found');
        return { data: toJson(note) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/notes/:uuid',
      summary: 'Change a note',
      tags: ['notes'],
      params: NoteParams,
      body: Type.Object(NoteWrite.properties, { additionalProperties: false, examples: [{ body: 'Renewal agreed.' }] }),
      errors: [404],
      response: DataEnvelope(NoteSchema),
      handler: async ({ params, body, em }) => {
        const note = await findByUuid(em, Note, params.uuid);
        if (!note) throw new NotFoundError('Note not found');
        if (body.title !== undefined) note.title = body.title;
        if (body.body !== undefined) note.body = body.body;
        enrich(note);
        await em.flush();
        return { data: toJson(note) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/notes/:uuid',
      summary: 'Delete a note',
      tags: ['notes'],
      params: NoteParams,
      errors: [404],
      response: DeletedEnvelope,
      handler: async ({ params, em }) => {
        const note = await findByUuid(em, Note, params.uuid);
        if (!note) throw new NotFoundError('Note not found');
        em.remove(note);
        return deleted('Note deleted');
      },
    }),
  );
}
