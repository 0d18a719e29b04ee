import { configRef, coreServices, createServiceFactory, definePlugin } from 'switchboard/core';
import { Migration0001Notes } from './migrations/0001-notes';
import { noteEnrichers } from './note-enrichers';
import { Note } from './note.entity';
import { notesDirectoryRef } from './notes-directory';
import { registerNoteRoutes } from './routes';

export { noteEnrichers, type NoteEnricher } from './note-enrichers';
export { notesDirectoryRef, type NotesDirectory } from './notes-directory';

const notesConfig = {
  maxPerTenant: { doc: 'Most notes a tenant may keep', format: 'nat', default: 10_000, env: 'NOTES_MAX_PER_TENANT' },
};

/**
 * The example plugin: one tenant-scoped resource with CRUD routes, a config slice,
 * an extension point other plugins add to, and a service other plugins may use.
 */
export default definePlugin({
  entities: [Note],
  migrations: [{ name: '0001-notes', class: Migration0001Notes }],
  config: notesConfig,
  provides: [noteEnrichers],
  services: [
    createServiceFactory({
      service: notesDirectoryRef,
      deps: { orm: coreServices.orm },
      factory: ({ orm }) => ({ count: () => orm.em.count(Note) }),
    }),
  ],
  deps: { http: coreServices.http, config: configRef(notesConfig) },
  init({ http, config }, { extensions }) {
    registerNoteRoutes(http, extensions.items(noteEnrichers), config.get('maxPerTenant'));
  },
});
