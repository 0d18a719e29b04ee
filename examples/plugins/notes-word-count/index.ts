import { definePlugin } from 'switchboard/core';
import { noteEnrichers } from '../notes';

/** Contributes to another plugin's extension point, and nothing else: no routes, no tables. */
export default definePlugin({
  contributes: [
    noteEnrichers.add({
      key: 'word_count',
      enrich: ({ body }) => body.split(/\s+/).filter(Boolean).length,
    }),
  ],
});
