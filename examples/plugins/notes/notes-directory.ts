import { createServiceRef } from 'switchboard/core';

/** The small read API the notes plugin offers to plugins that depend on it. */
export interface NotesDirectory {
  /** How many notes the current tenant has. */
  count(): Promise<number>;
}

export const notesDirectoryRef = createServiceRef<NotesDirectory>('notes.directory');
