import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { encode, requireTools, scratchDir, speak } from '../transcriptions/audio/audio-fixtures';

/**
 * What the voice-note tests add to the channel providers' local fakes, without changing
 * them: a front server per provider that plays its media download as documented and hands
 * every other request to the fake behind it (sending, typing, checks).
 *
 * - WhatsApp Cloud API (media ids here start `media-`): `GET /{version}/{media-id}` with the bearer token answers
 *   `{messaging_product, url, mime_type, sha256, file_size, id}`; the `url` (here on the
 *   front, `/whatsapp-media/{id}`) answers the bytes, again only with the token.
 * - Telegram Bot API: `getFile?file_id=` answers `{ok, result: {file_id, file_unique_id,
 *   file_size, file_path}}`; `GET /file/bot{token}/{file_path}` answers the bytes.
 *
 * Every media request is recorded in `fetches` (path and Authorization).
 */

export interface MediaFront {
  url: string;
  /** Media by id (WhatsApp media id, Telegram file_id). */
  media: Map<string, { bytes: Buffer; mimeType: string }>;
  /** The next media requests answer these statuses instead (then as usual). */
  failures: number[];
  fetches: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

type Own = { status: number; headers: Record<string, string>; body: Buffer | string } | null;
type Handler = (request: { method: string; path: string; query: URLSearchParams; authorization: string | undefined }, front: MediaFront) => Own;

const json = (status: number, body: unknown): Own => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function startFront(target: string, handle: Handler): Promise<MediaFront> {
  const front: MediaFront = { url: '', media: new Map(), failures: [], fetches: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://front');
      const authorization = req.headers.authorization;
      const own = handle({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, authorization }, front);
      if (own) {
        front.fetches.push({ path: url.pathname, authorization });
        const failure = front.failures.shift();
        if (failure) return res.writeHead(failure, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure', code: 2 } }));
        return res.writeHead(own.status, own.headers).end(own.body);
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url}`, { method: req.method, headers, body }).then(
        async (answer) => res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer())),
        (error: Error) => res.writeHead(502).end(error.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front.close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  return front;
}

/** The WhatsApp fake (at `target`, the server's URL without a version) with media downloads in front; `accessToken()` is the fake's current token. */
export function startWhatsAppMediaFront(target: string, accessToken: () => string, version = 'v21.0'): Promise<MediaFront> {
  return startFront(target, ({ method, path: route, authorization }, front) => {
    if (method !== 'GET') return null;
    const bearer = authorization === `Bearer ${accessToken()}`;
    const node = route.match(new RegExp(`^/${version}/(media-[^/]+)$`));
    if (node) {
      const id = decodeURIComponent(node[1]);
      if (!bearer) return json(401, { error: { message: 'Invalid OAuth access token', code: 190 } });
      const item = front.media.get(id);
      // An id the fake does not hold (expired, or never ours): Graph's "does not exist" (code 100, subcode 33).
      if (!item) return json(400, { error: { message: `Unsupported get request. Object with ID '${id}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33 } });
      return json(200, { messaging_product: 'whatsapp', url: `${front.url}/whatsapp-media/${encodeURIComponent(id)}?ext=1700000000&hash=ATu`, mime_type: item.mimeType, sha256: 'unchecked', file_size: item.bytes.length, id });
    }
    const download = route.match(/^\/whatsapp-media\/([^/]+)$/);
    if (download) {
      if (!bearer) return json(401, { error: { message: 'Invalid OAuth access token', code: 190 } });
      const item = front.media.get(decodeURIComponent(download[1]));
      return item ? { status: 200, headers: { 'content-type': item.mimeType }, body: item.bytes } : json(404, { error: { message: 'not found' } });
    }
    return null;
  });
}

/** The Telegram fake (at `target`) with getFile and file downloads in front, for the bot `token()`. */
export function startTelegramMediaFront(target: string, token: () => string): Promise<MediaFront> {
  return startFront(target, ({ path: route, query }, front) => {
    if (route.toLowerCase() === `/bot${token()}/getfile`.toLowerCase()) {
      const id = query.get('file_id') ?? '';
      const item = front.media.get(id);
      if (!item) return json(400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
      return json(200, { ok: true, result: { file_id: id, file_unique_id: id.slice(0, 12), file_size: item.bytes.length, file_path: `voice/${id}.oga` } });
    }
    const download = route.match(/^\/file\/bot([^/]+)\/voice\/([^/]+)\.oga$/);
    if (download) {
      if (download[1] !== token()) return json(404, { ok: false, error_code: 404, description: 'Not Found' });
      const item = front.media.get(decodeURIComponent(download[2]));
      return item ? { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: item.bytes } : json(404, { ok: false, error_code: 404, description: 'Not Found' });
    }
    return null;
  });
}

/** A voice note as WhatsApp and Telegram carry them: espeak-ng's speech of `text`, encoded to Opus in Ogg. */
export function voiceNote(text: string): Buffer {
  requireTools('espeak-ng', 'ffmpeg');
  const scratch = scratchDir();
  try {
    const wav = speak(path.join(scratch.dir, 'speech.wav'), text);
    return readFileSync(encode(wav, path.join(scratch.dir, 'voice.ogg'), ['-c:a', 'libopus', '-b:a', '24k'], 'ogg'));
  } finally {
    scratch.remove();
  }
}
