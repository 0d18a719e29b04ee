import { randomBytes } from 'node:crypto';
import { EgressError, EgressRefusedError, type Egress } from '../../../core';

/** One segment as an OpenAI-compatible server answers it (`verbose_json`); `speaker` where the server tells speakers apart. */
export interface ProviderSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string | number | null;
}

export interface ProviderAnswer {
  text: string;
  language: string | null;
  duration: number | null;
  segments: ProviderSegment[];
}

/**
 * A failure of the provider. `retryable`: 429, 5xx or the network (worth another
 * try later); otherwise (another 4xx, an answer we cannot read) another try would fail
 * the same way.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface ProviderSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export interface AudioPart {
  bytes: Buffer;
  fileName: string;
  mimeType: string;
}

/** A multipart/form-data body of text fields and one file, built whole (a chunk is at most TRANSCRIPTION_CHUNK_SECONDS of audio). */
export function multipartBody(fields: Array<[string, string]>, file: AudioPart & { field: string }): { body: Buffer; contentType: string } {
  const boundary = `----switchboard${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.fileName}"\r\nContent-Type: ${file.mimeType}\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** Reads a `verbose_json` answer, tolerating what servers leave out (segments, duration); no text at all is not an answer. */
export function readAnswer(raw: unknown): ProviderAnswer {
  if (!raw || typeof raw !== 'object' || typeof (raw as { text?: unknown }).text !== 'string') {
    throw new ProviderError('The transcription server answered without a `text`: not a verbose_json transcription', false);
  }
  const answer = raw as { text: string; language?: unknown; duration?: unknown; segments?: unknown };
  const segments: ProviderSegment[] = [];
  for (const item of Array.isArray(answer.segments) ? answer.segments : []) {
    if (!item || typeof item !== 'object') continue;
    const { start, end, text, speaker } = item as Record<string, unknown>;
    const from = finite(start);
    const to = finite(end);
    if (from === null || to === null || typeof text !== 'string') continue;
    segments.push({ start: from, end: to, text, ...(typeof speaker === 'string' || typeof speaker === 'number' ? { speaker } : {}) });
  }
  return { text: answer.text, language: typeof answer.language === 'string' && answer.language ? answer.language : null, duration: finite(answer.duration), segments };
}

/** The error text a server put in its answer (`{error: {message}}` as OpenAI, or `{error: "..."}`, or the text itself), shortened. */
function errorText(body: Buffer): string {
  const text = body.toString('utf8').trim();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message ?? parsed.detail);
    if (typeof message === 'string' && message) return message.slice(0, 500);
  } catch {
    // not JSON: the text as it is
  }
  return text.slice(0, 500);
}

/**
 * One `POST {base}/audio/transcriptions` (OpenAI's audio transcription API, which
 * whisper.cpp's server, faster-whisper servers and vLLM speak): the file with `model`,
 * `response_format=verbose_json`, `timestamp_granularities[]=segment` and the
 * `language` hint. Through the egress guard, not retried here: the job's retries on the
 * bus wait between tries without holding anything.
 */
export async function transcribeAudio(egress: Egress, settings: ProviderSettings, part: AudioPart, language: string | null): Promise<ProviderAnswer> {
  const fields: Array<[string, string]> = [
    ['model', settings.model],
    ['response_format', 'verbose_json'],
    ['timestamp_granularities[]', 'segment'],
  ];
  if (language) fields.push(['language', language]);
  const { body, contentType } = multipartBody(fields, { ...part, field: 'file' });
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  let response;
  try {
    response = await egress.request(url, {
      method: 'POST',
      headers: { 'content-type': contentType, accept: 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body,
      timeoutMs: settings.timeoutMs,
      retries: 0,
    });
  } catch (error) {
    // An address the egress policy refuses stays refused; a timeout or a dropped connection may pass next time.
    if (error instanceof EgressError) throw new ProviderError(`The transcription server could not be reached: ${error.message}`, !(error instanceof EgressRefusedError));
    throw error;
  }
  if (response.status < 200 || response.status >= 300) {
    const retryable = response.status === 429 || response.status >= 500;
    throw new ProviderError(`The transcription server answered ${response.status}: ${errorText(response.body)}`, retryable);
  }
  let parsed: unknown;
  try {
    parsed = response.json();
  } catch {
    throw new ProviderError('The transcription server answered something that is not JSON', false);
  }
  return readAnswer(parsed);
}
