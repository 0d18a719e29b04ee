/**
 * The load of bench/transcriptions.ts, run in the parent: files uploaded through
 * `POST /api/v1/transcriptions/upload` (multipart, as a user's client sends them) and
 * followed until they are transcribed, uploaded back to back, or written to the storage
 * plugin's fs driver directly (the baseline). Stamps are on the system clock
 * (bench/lib/runtime-clock.ts), as the kernel's and the provider's are.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { FsFileStorage } from '../../plugins/storage/fs-file-storage';
import { wallClock } from '../lib/runtime-clients';

export interface Target {
  url: string;
  host: string;
  token: string;
  agentUuid: string;
  dispatcher: Agent;
}

/** One file through the platform. */
export interface FileSample {
  id: number;
  uuid: string | null;
  bytes: number;
  /** When the upload request started, system clock ms. */
  startedAt: number;
  /** Upload request -> its 202 read. */
  uploadMs: number;
  /** The stamp of its session's close (`ended_at`, written in the transaction that completes the transcription), system clock ms. */
  endedAt: number | null;
  /** Upload request -> the first poll that saw it completed: the stamp's upper bound, a poll interval coarse. */
  seenMs: number | null;
  ok: boolean;
  error?: string;
}

async function api(target: Target, method: 'GET' | 'POST', path: string, body: string | Buffer | undefined, expected: number, contentType = 'application/json'): Promise<any> {
  const headers: Record<string, string> = { host: target.host, authorization: `Bearer ${target.token}` };
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await request(`${target.url}${path}`, { method, dispatcher: target.dispatcher, headers, body });
  const text = await res.body.text();
  if (res.statusCode !== expected) throw new Error(`${method} ${path} answered ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export async function createAgent(target: Target): Promise<string> {
  return (await api(target, 'POST', '/api/v1/agents', JSON.stringify({ name: 'Reception' }), 201)).data.agent_uuid;
}

const UPLOAD_PATH = '/api/v1/transcriptions/upload';

/**
 * A multipart/form-data body made whole before the request (the client's own work, not
 * timed): the fields, then the file. Sent as one buffer with its length, the fastest a
 * client can offer it, so the run measures the server and not the client's encoder.
 */
function multipart(fields: Record<string, string>, file: { name: string; type: string; bytes: Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----bench${randomUUID().replace(/-/g, '')}`;
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const head = `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head, 'latin1'), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1')]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads one file for the agent (to `path`: the floor's server takes the same request); answers its uuid and the request's times. */
async function upload(target: Target, id: number, file: Buffer, path = UPLOAD_PATH): Promise<{ uuid: string; startedAt: number; uploadMs: number }> {
  const { body, contentType } = multipart({ agent_uuid: target.agentUuid, reference_id: `bench-${id}` }, { name: `call-${id}.wav`, type: 'audio/wav', bytes: file });
  const startedAt = wallClock();
  const started = performance.now();
  const answer = await api(target, 'POST', path, body, 202, contentType);
  return { uuid: answer.data?.uuid ?? null, startedAt, uploadMs: performance.now() - started };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the transcription until it is completed or failed; answers it and when it was seen so. */
async function settled(target: Target, uuid: string, pollMs: number, timeoutMs: number): Promise<{ data: any; seenAt: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { data } = await api(target, 'GET', `/api/v1/transcriptions/${uuid}`, undefined, 200);
    if (data.status === 'completed' || data.status === 'failed') return { data, seenAt: performance.now() };
    if (performance.now() > deadline) throw new Error(`transcription ${uuid} still ${data.status} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** The conversation's one session, which must be closed: its `ended_at`, ms. */
async function closedSessionEnd(target: Target, conversationUuid: string): Promise<number> {
  const { data } = await api(target, 'GET', `/api/v1/sessions?conversation_uuid=${conversationUuid}`, undefined, 200);
  const session = (data.items as Array<{ status: string; ended_at: string | null }>)[0];
  if (!session || session.status !== 'closed' || !session.ended_at) throw new Error(`conversation ${conversationUuid}: its session is ${session ? session.status : 'missing'}`);
  return Date.parse(session.ended_at);
}

/** One file end to end: uploaded, transcribed, its conversation's session closed. */
export async function endToEnd(target: Target, id: number, file: Buffer, pollMs: number, timeoutMs: number): Promise<FileSample> {
  const sample: FileSample = { id, uuid: null, bytes: file.length, startedAt: wallClock(), uploadMs: NaN, endedAt: null, seenMs: null, ok: false };
  const started = performance.now();
  try {
    const taken = await upload(target, id, file);
    Object.assign(sample, taken);
    const { data, seenAt } = await settled(target, taken.uuid, pollMs, timeoutMs);
    sample.seenMs = seenAt - started;
    if (data.status !== 'completed') throw new Error(`failed: ${data.error_message}`);
    if (!data.conversation_uuid) throw new Error('completed without a conversation');
    sample.endedAt = await closedSessionEnd(target, data.conversation_uuid);
    sample.ok = true;
  } catch (error) {
    sample.error = String((error as Error).message ?? error);
  }
  return sample;
}

/** One file uploaded only (its transcription goes on behind; `settleAll` waits for it afterwards), to the platform or to the floor's `path`. */
export async function uploadOnly(target: Target, id: number, file: Buffer, path = UPLOAD_PATH): Promise<FileSample> {
  const sample: FileSample = { id, uuid: null, bytes: file.length, startedAt: wallClock(), uploadMs: NaN, endedAt: null, seenMs: null, ok: false };
  try {
    Object.assign(sample, await upload(target, id, file, path));
    sample.ok = true;
  } catch (error) {
    sample.error = String((error as Error).message ?? error);
  }
  return sample;
}

/** Waits, untimed, until every uploaded file's transcription settled: the next run starts with nothing queued. */
export async function settleAll(target: Target, samples: FileSample[], timeoutMs: number): Promise<number> {
  let failed = 0;
  for (const sample of samples) {
    if (!sample.uuid) continue;
    const { data } = await settled(target, sample.uuid, 100, timeoutMs);
    if (data.status !== 'completed') failed++;
  }
  return failed;
}

/** The baseline: the same bytes written with the storage plugin's fs driver, as the upload route's `put` does (a key per file). */
export async function directWrite(storage: FsFileStorage, id: number, file: Buffer): Promise<FileSample> {
  const sample: FileSample = { id, uuid: null, bytes: file.length, startedAt: wallClock(), uploadMs: NaN, endedAt: null, seenMs: null, ok: false };
  const started = performance.now();
  try {
    await storage.put(`transcriptions/bench/${randomUUID()}.wav`, file, { contentType: 'audio/wav', size: file.length });
    sample.uploadMs = performance.now() - started;
    sample.ok = true;
  } catch (error) {
    sample.error = String((error as Error).message ?? error);
  }
  return sample;
}

/** `count` jobs, `concurrency` at a time, each started as soon as one ends; answers them in order and the wall time. */
export async function inParallel<T>(count: number, concurrency: number, job: (index: number) => Promise<T>): Promise<{ results: T[]; seconds: number }> {
  const results: T[] = new Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await job(index);
      }
    }),
  );
  return { results, seconds: (performance.now() - started) / 1000 };
}
