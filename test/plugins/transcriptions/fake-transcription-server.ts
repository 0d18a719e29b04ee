import http from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

/** One request as the server received it: the multipart fields and the file part. */
export interface TranscriptionRequest {
  path: string;
  authorization: string | undefined;
  contentType: string;
  fields: Record<string, string[]>;
  file: { field: string; name: string; mimeType: string; bytes: Buffer } | null;
}

/** What one request is answered: a verbose_json body (200), or an error status with OpenAI's error body. */
export type TranscriptionReply =
  | { verbose: { text: string; language?: string; duration?: number; segments?: Array<{ start: number; end: number; text: string; speaker?: string }> } }
  | { status: number; message?: string };

/** A reply made from the request; a promise holds the request until it settles (a provider still working). */
export type ScriptedReply = (request: TranscriptionRequest) => TranscriptionReply | Promise<TranscriptionReply>;

export interface FakeTranscriptionServer {
  /** The base URL, with its `/v1`, for TRANSCRIPTION_BASE_URL. */
  url: string;
  apiKey: string;
  requests: TranscriptionRequest[];
  /** Queues the answers of the next requests, in order; once the queue is empty, `fallback` answers. */
  script(...replies: Array<TranscriptionReply | ScriptedReply>): void;
  close(): Promise<void>;
}

/** What the OpenAI audio transcription API requires of a request; a problem found is answered 400 as OpenAI would. */
function problemOf(request: TranscriptionRequest, apiKey: string): { status: number; message: string } | null {
  if (request.authorization !== `Bearer ${apiKey}`) return { status: 401, message: 'Incorrect API key provided' };
  if (!request.contentType.startsWith('multipart/form-data')) return { status: 400, message: 'Expected multipart/form-data' };
  if (!request.file || request.file.field !== 'file' || request.file.bytes.length === 0) return { status: 400, message: "Missing required parameter: 'file'" };
  if (!request.fields.model?.[0]) return { status: 400, message: "Missing required parameter: 'model'" };
  if (request.fields.response_format?.[0] !== 'verbose_json') return { status: 400, message: 'This test server answers verbose_json only' };
  if (!request.fields['timestamp_granularities[]']?.includes('segment')) return { status: 400, message: 'timestamp_granularities[] must include segment' };
  return null;
}

function parse(req: http.IncomingMessage): Promise<TranscriptionRequest> {
  const request: TranscriptionRequest = {
    path: new URL(req.url ?? '/', 'http://x').pathname,
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'] ?? '',
    fields: {},
    file: null,
  };
  if (!request.contentType.startsWith('multipart/form-data')) {
    req.resume();
    return new Promise((resolve) => req.on('end', () => resolve(request)));
  }
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => (request.fields[name] ??= []).push(value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => (request.file = { field, name: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('close', () => resolve(request));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

/**
 * A local server that follows OpenAI's audio transcription API
 * (`POST /v1/audio/transcriptions`): it checks the API key and the multipart request
 * (`file`, `model`, `response_format=verbose_json`, `timestamp_granularities[]=segment`)
 * and answers what the test scripted for each request: a verbose_json transcription
 * (`task`, `language`, `duration`, `text`, `segments` with ids and times), or an error
 * status with OpenAI's error body.
 */
export async function startFakeTranscriptionServer(options: { apiKey?: string; fallback?: TranscriptionReply } = {}): Promise<FakeTranscriptionServer> {
  const apiKey = options.apiKey ?? 'sk-test-transcription';
  const queue: Array<TranscriptionReply | ScriptedReply> = [];
  const requests: TranscriptionRequest[] = [];
  const send = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    parse(req).then(
      async (request) => {
        if (req.method !== 'POST' || request.path !== '/v1/audio/transcriptions') return send(res, 404, { error: { message: `no route for ${req.method} ${request.path}` } });
        requests.push(request);
        const problem = problemOf(request, apiKey);
        if (problem) return send(res, problem.status, { error: { message: problem.message, type: 'invalid_request_error' } });
        const next = queue.shift() ?? options.fallback ?? { verbose: { text: '' } };
        const reply = typeof next === 'function' ? await next(request) : next;
        if ('status' in reply) return send(res, reply.status, { error: { message: reply.message ?? `failure ${reply.status}`, type: 'server_error' } });
        const { text, language = 'english', duration = 0, segments = [] } = reply.verbose;
        send(res, 200, {
          task: 'transcribe',
          language,
          duration,
          text,
          segments: segments.map((segment, id) => ({ id, seek: 0, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.2, no_speech_prob: 0.01, ...segment })),
        });
      },
      (error: Error) => send(res, 400, { error: { message: `unreadable multipart: ${error.message}` } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    script: (...replies) => void queue.push(...replies),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
