import type { ConfigValues } from '../../core';

/** The evaluation plugin's config slice (convict); README's evaluation settings table lists each. */
export const evaluationConfig = {
  minMessages: {
    doc: 'Sessions with fewer messages than this are not evaluated',
    format: 'nat',
    default: 2,
    env: 'EVALUATION_MIN_MESSAGES',
  },
  maxAttempts: {
    doc: 'Deliveries of a session’s evaluation while the model is unavailable; after the last, the record is stored with the errors',
    format: 'nat',
    default: 5,
    env: 'EVALUATION_MAX_ATTEMPTS',
  },
  retryInitialMs: {
    doc: 'First wait before evaluating again after the model was unavailable (doubles each time, at most 10 minutes)',
    format: 'nat',
    default: 30000,
    env: 'EVALUATION_RETRY_INITIAL_MS',
  },
  maxTranscriptChars: {
    doc: 'Longest transcript sent to the model; a longer session keeps its beginning and end',
    format: 'nat',
    default: 60000,
    env: 'EVALUATION_MAX_TRANSCRIPT_CHARS',
  },
  model: {
    doc: 'Model of the analyzer calls; empty: LLM_MODEL',
    format: String,
    default: '',
    env: 'EVALUATION_MODEL',
  },
  concurrency: {
    doc: 'Sessions one worker process evaluates at once',
    format: 'nat',
    default: 4,
    env: 'EVALUATION_CONCURRENCY',
  },
};

/** The slice as validated at boot. */
export type EvaluationSettings = ConfigValues<typeof evaluationConfig>;
