import type { ConfigValues } from '../../core';

/** The conversations plugin's config slice (convict); README's conversations settings table lists each. */
export const conversationsConfig = {
  defaultSessionTimeoutMinutes: {
    doc: 'Customer idleness (minutes) that closes a session when no evaluate settings say otherwise',
    format: 'nat',
    default: 30,
    env: 'CONVERSATIONS_SESSION_TIMEOUT_MINUTES',
  },
  exportMaxLimit: {
    doc: 'Largest `limit` the message export accepts (rows per page)',
    format: 'nat',
    default: 1000,
    env: 'CONVERSATIONS_EXPORT_MAX_LIMIT',
  },
};

/** The slice as validated at boot. */
export type ConversationsSettings = ConfigValues<typeof conversationsConfig>;
