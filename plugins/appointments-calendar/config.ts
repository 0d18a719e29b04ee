/**
 * How the calendar sync retries a calendar that fails (down, rate limiting, a token to
 * refresh later): the bus redelivers the appointment's change with a growing wait, then
 * dead-letters it (an operator replays it under /admin/v1/dead-letters). Set in a
 * config file (`{"appointments-calendar": {"syncAttempts": 20}}`); no environment variables.
 */
export const appointmentsCalendarConfig = {
  syncAttempts: {
    doc: 'Tries of writing one appointment change into its schedule’s calendar before the message is dead-lettered',
    format: 'nat',
    default: 10,
  },
  syncRetryInitialMs: {
    doc: 'Wait before the first retry of a failed calendar write; it triples on each try (at most an hour)',
    format: 'nat',
    default: 10_000,
  },
};
