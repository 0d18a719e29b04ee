/**
 * The provider of bench/transcriptions.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/transcriptions/provider.ts`, forked with IPC): the
 * OpenAI-shaped transcription server of the plugin's tests
 * (test/plugins/transcriptions/fake-transcription-server.ts), answering every request at
 * once with the same verbose_json (a minute in six segments, two speakers).
 *
 * Each request is timed where the server takes it, through Node's HTTP diagnostics
 * channels: request received -> response finished, on the system clock
 * (bench/lib/runtime-clock.ts). That span is the provider's time (reading the upload
 * included), taken out of the platform's. Which file a request carries is read from the
 * mark in its first samples (audio.ts), as the bytes pass.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { startFakeTranscriptionServer, type TranscriptionReply } from '../../test/plugins/transcriptions/fake-transcription-server';
import { runChild } from '../lib/children';
import { clockCorrection } from '../lib/runtime-clock';
import { FILE_MARK } from './audio';

export type ProviderMessage =
  | { type: 'ready'; url: string; apiKey: string }
  /** Since the last ask: [received, finished] per file id; `unmarked`, requests with no file mark. */
  | { type: 'spans'; spans: Record<string, Array<[number, number]>>; requests: number; unmarked: number }
  | { type: 'error'; error: string };

/** The mark is in the first samples: past the multipart head and the WAV header, well within this. */
const MARK_WITHIN_BYTES = 64 * 1024;

const SPEAKERS = ['SPEAKER_00', 'SPEAKER_01'];
const ANSWER: TranscriptionReply = {
  verbose: {
    text: 'Good morning, thank you for calling. I would like to change my order. Of course, what is the order number? It is one two three four. Thank you, it is changed.',
    language: 'english',
    duration: 60,
    segments: ['Good morning, thank you for calling.', 'I would like to change my order.', 'Of course, what is the order number?', 'It is one two three four.', 'Thank you, it is changed.', 'Goodbye.'].map((text, index) => ({
      start: index * 10,
      end: index * 10 + 8,
      text,
      speaker: SPEAKERS[index % 2],
    })),
  },
};

async function runProvider(): Promise<void> {
  const correction = clockCorrection();
  const now = () => performance.timeOrigin + performance.now() + correction;
  let spans = new Map<string, Array<[number, number]>>();
  const counts = { requests: 0, unmarked: 0 };
  const timings = new WeakMap<IncomingMessage, { start: number; id: string | null }>();

  diagnostics.subscribe('http.server.request.start', (message: any) => {
    const request = message.request as IncomingMessage;
    const timing = { start: now(), id: null as string | null };
    timings.set(request, timing);
    // Read beside the server's own parser: the head of the body, until the mark is seen.
    let head = '';
    const look = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const found = FILE_MARK.exec(head);
      if (found) timing.id = String(Number(found[1]));
      if (found || head.length > MARK_WITHIN_BYTES) request.off('data', look);
      else head = head.slice(-32);
    };
    request.on('data', look);
  });
  diagnostics.subscribe('http.server.response.finish', (message: any) => {
    const timing = timings.get(message.request);
    if (!timing) return;
    counts.requests++;
    if (timing.id === null) {
      counts.unmarked++;
      return;
    }
    let list = spans.get(timing.id);
    if (!list) spans.set(timing.id, (list = []));
    list.push([timing.start, now()]);
  });

  const server = await startFakeTranscriptionServer({ apiKey: 'sk-bench-transcription', fallback: ANSWER });
  // The server keeps each request's bytes (a test reads them): nothing is kept here, a run is gigabytes.
  const trim = setInterval(() => server.requests.splice(0), 500);

  process.on('message', (message: unknown) => {
    if (message === 'spans') {
      process.send!({ type: 'spans', spans: Object.fromEntries(spans), ...counts } satisfies ProviderMessage);
      spans = new Map();
      counts.requests = counts.unmarked = 0;
    } else if (message === 'stop') {
      clearInterval(trim);
      void server.close().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', url: server.url, apiKey: server.apiKey } satisfies ProviderMessage);
}

if (require.main === module) runChild(runProvider);
