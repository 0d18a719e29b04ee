import type { ConfigValues } from '../../core';

/** The transcriptions plugin's config slice (convict). */
export const transcriptionsConfig = {
  baseUrl: {
    doc: 'Base URL of the OpenAI-compatible speech-to-text API, with its /v1 (like LLM_BASE_URL): whisper.cpp server, faster-whisper servers, vLLM, OpenAI. Empty: transcriptions are refused with 503',
    format: String,
    default: '',
    env: 'TRANSCRIPTION_BASE_URL',
  },
  apiKey: { doc: 'Bearer token sent to TRANSCRIPTION_BASE_URL (none when empty)', format: String, default: '', env: 'TRANSCRIPTION_API_KEY', sensitive: true },
  model: { doc: 'The `model` field sent with each audio file', format: String, default: 'whisper-1', env: 'TRANSCRIPTION_MODEL' },
  chunkSeconds: {
    doc: 'Longest piece of audio sent in one request: longer recordings are cut at silences into pieces of at most this, and their segments stitched',
    format: 'nat',
    default: 600,
    env: 'TRANSCRIPTION_CHUNK_SECONDS',
  },
  maxFileMb: { doc: 'Largest audio file taken, in MiB (an upload also stays under HTTP_UPLOAD_LIMIT)', format: 'nat', default: 50, env: 'TRANSCRIPTION_MAX_FILE_MB' },
  maxSeconds: { doc: 'Longest recording taken, in seconds', format: 'nat', default: 14_400, env: 'TRANSCRIPTION_MAX_SECONDS' },
  attempts: {
    doc: 'Tries of the provider for one transcription (429, 5xx and network failures are retried); after the last it is `failed`',
    format: 'nat',
    default: 5,
    env: 'TRANSCRIPTION_MAX_ATTEMPTS',
  },
  retryBackoffMs: {
    doc: 'Wait before the first retry of the provider; each next wait is 4 times longer (at most 10 minutes)',
    format: 'nat',
    default: 5000,
    env: 'TRANSCRIPTION_RETRY_BACKOFF_MS',
  },
  timeoutMs: { doc: 'Longest wait for the provider to answer one request (one chunk)', format: 'nat', default: 600_000, env: 'TRANSCRIPTION_TIMEOUT_MS' },
  callbackAttempts: {
    doc: 'Tries of a completion callback (any non-2xx answer or network failure is retried); after the last it is given up',
    format: 'nat',
    default: 7,
    env: 'TRANSCRIPTION_CALLBACK_ATTEMPTS',
  },
  callbackBackoffMs: {
    doc: 'Wait before the first retry of a callback; each next wait is 6 times longer (at most 6 hours)',
    format: 'nat',
    default: 5000,
    env: 'TRANSCRIPTION_CALLBACK_BACKOFF_MS',
  },
  incomingMaxAgeMinutes: {
    doc: 'Age (since their bytes were last written) after which files uploads left under transcriptions/incoming/ are removed: an upload waits there only while its request runs (at most the 5-minute request timeout), so what is older belongs to a process that died. Swept every 15 minutes by processes running background jobs; 0: never',
    format: 'nat',
    default: 60,
    env: 'TRANSCRIPTION_INCOMING_MAX_AGE_MINUTES',
  },
  urlTtlSeconds: {
    doc: 'Lifetime of the signed `stored_file_url` when the storage gives one (S3)',
    format: 'nat',
    default: 3600,
    env: 'TRANSCRIPTION_URL_TTL_SECONDS',
  },
};

export type TranscriptionsSettings = ConfigValues<typeof transcriptionsConfig>;
