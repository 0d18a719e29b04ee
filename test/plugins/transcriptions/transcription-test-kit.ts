import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { ApiClient, TestKernel } from '../../../core/testing';

export const TRANSCRIPTION_PLUGINS = ['agents', 'conversations', 'storage', 'agent-webhooks', 'tables', 'transcriptions'].map((id) => path.resolve(__dirname, '../../../plugins', id));

/**
 * Every file under `dir`, as paths relative to it ([] when it does not exist). A file
 * removed between the listing and its stat (a sweep, an upload cleaning up) is gone, not
 * an error.
 */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const isFile = (name: string) => statSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile() ?? false;
  return (readdirSync(dir, { recursive: true }) as string[]).filter(isFile).sort();
}

/** A spoken recording made by espeak-ng (a WAV file), as bytes. */
export function spoken(text: string): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'transcription-test-'));
  try {
    const file = path.join(dir, 'speech.wav');
    execFileSync('espeak-ng', ['-w', file, text], { stdio: ['ignore', 'ignore', 'pipe'] });
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PCM WAV of silence written here: 8 kHz, 16-bit mono, `seconds` long. */
export function silentWav(seconds: number): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(Math.round(seconds * rate) * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A small HTTP server: answers GETs of `files`, and records every POST (raw body and headers), answering each with the next of `statuses` (then 200). */
export interface Receiver {
  url: string;
  files: Map<string, Buffer>;
  posts: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }>;
  statuses: number[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const files = new Map<string, Buffer>();
  const posts: Receiver['posts'] = [];
  const statuses: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET') {
        const file = files.get(url.pathname);
        return file ? res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file) : res.writeHead(404).end('not found');
      }
      posts.push({ path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    posts,
    statuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Standard Webhooks, computed here independently of the plugin: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed by the base64 after `whsec_`. */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Polls until `check` holds or the deadline passes (then fails with what it saw last). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  return last;
}

export interface TranscriptionJsonForTests {
  uuid: string;
  status: string;
  error_message: string | null;
  conversation_uuid: string | null;
  transcription_result: { text: string; language: string | null; duration: number; segments: Array<{ start: number; end: number; speaker: string; speaker_label: string | null; text: string }> } | null;
  [member: string]: unknown;
}

/** The transcription once it is `completed` or `failed`. */
export const settled = (api: ApiClient, uuid: string) =>
  eventually(
    async () => (await api.get(`/api/v1/transcriptions/${uuid}`).expect(200)).body.data as TranscriptionJsonForTests,
    (data) => data.status === 'completed' || data.status === 'failed',
    `transcription ${uuid} settled`,
  );

const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));

/** What in `body` the route's response schema refuses (null: nothing), so answers are checked against what the OpenAPI document says. */
export function responseSchemaErrors(kit: TestKernel, method: string, routePath: string, body: unknown): unknown {
  const route = kit.kernel.registry.list().find((candidate) => candidate.method === method && candidate.path === routePath);
  if (!route?.response) throw new Error(`no response schema for ${method} ${routePath}`);
  const validate = ajv.compile(route.response);
  return validate(body) ? null : validate.errors;
}
