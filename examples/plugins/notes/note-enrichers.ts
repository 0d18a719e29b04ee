import { createExtensionPoint } from 'switchboard/core';

/** Computes one derived value of a note, stored under `extras[key]`. */
export interface NoteEnricher {
  key: string;
  enrich(note: { title: string; body: string }): unknown;
}

/** Other plugins add enrichers here; two with one key are refused at boot. */
export const noteEnrichers = createExtensionPoint<NoteEnricher>({ id: 'notes.enrichers', keyOf: (e) => e.key });
