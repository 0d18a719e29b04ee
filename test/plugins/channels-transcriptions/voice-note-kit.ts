import { createHmac, randomBytes } from 'node:crypto';
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
 * - Twilio (an MMS's `MediaUrl{i}`): `GET /2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}/Media/{MediaSid}`
 *   on the API's origin needs HTTP Basic with the account SID and auth token (Twilio's
 *   `{code: 20003, message: 'Authenticate'}` 401 otherwise), then redirects to a signed,
 *   short-lived URL of its media store on another origin (a MediaStore, S3-like: it
 *   refuses a request that also carries an Authorization header).
 * - Messenger: an attachment's `payload.url` is a signed link of Meta's CDN, fetched as it
 *   is, no token (a MediaStore on its own origin).
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

/**
 * A media store on its own origin, reached only through signed URLs (`signed(key)`): a
 * wrong or missing signature or an expired link answers 403, as Twilio's media store
 * (S3) and Meta's CDN do. `s3` style (Twilio's): `/media/{key}?Expires=&Signature=`, and a
 * request carrying an Authorization header beside the signature is refused (S3's 400
 * "Only one auth mechanism allowed"). `cdn` style (Meta's): `/v/t59.3654-21/{key}/audioclip.mp4?_nc_cat=&oh=&oe=`.
 */
export interface MediaStore {
  url: string;
  media: Map<string, { bytes: Buffer; mimeType: string }>;
  fetches: Array<{ path: string; query: string; authorization: string | undefined }>;
  signed(key: string): string;
  close(): Promise<void>;
}

export async function startMediaStore(style: 's3' | 'cdn'): Promise<MediaStore> {
  const secret = randomBytes(16);
  const sign = (key: string, expires: string) => createHmac('sha256', secret).update(`${key}\n${expires}`).digest('hex');
  const names = style === 's3' ? { expires: 'Expires', signature: 'Signature' } : { expires: 'oe', signature: 'oh' };
  const route = style === 's3' ? /^\/media\/([^/]+)$/ : /^\/v\/t59\.3654-21\/([^/]+)\/audioclip\.mp4$/;
  const store: MediaStore = {
    url: '',
    media: new Map(),
    fetches: [],
    signed: (key) => {
      const expires = String(Math.floor(Date.now() / 1000) + 300);
      const at = style === 's3' ? `/media/${encodeURIComponent(key)}` : `/v/t59.3654-21/${encodeURIComponent(key)}/audioclip.mp4`;
      const extra = style === 'cdn' ? '_nc_cat=108&' : '';
      return `${store.url}${at}?${extra}${names.expires}=${expires}&${names.signature}=${sign(key, expires)}`;
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://store');
    const authorization = req.headers.authorization;
    store.fetches.push({ path: url.pathname, query: url.search, authorization });
    const match = req.method === 'GET' ? url.pathname.match(route) : null;
    const key = match ? decodeURIComponent(match[1]) : '';
    const expires = url.searchParams.get(names.expires) ?? '';
    const xml = (status: number, code: string, message: string) => res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
    if (!match) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
    if (style === 's3' && authorization !== undefined) return xml(400, 'InvalidArgument', 'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified');
    if (url.searchParams.get(names.signature) !== sign(key, expires) || Number(expires) * 1000 < Date.now()) return xml(403, 'AccessDenied', 'Request has expired or the signature does not match');
    const item = store.media.get(key);
    if (!item) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
    res.writeHead(200, { 'content-type': item.mimeType, 'content-length': String(item.bytes.length) }).end(item.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  store.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  store.close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  return store;
}

/** Twilio's 401 for a request without the account's Basic credentials. */
const twilioUnauthenticated = (): Own => json(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });

/**
 * The Twilio fake (at `target`) with MMS media in front, for the account `account()`:
 * `media` by MediaSid; a good request is redirected (307) to `store`, which is given the
 * bytes under the MediaSid.
 */
export function startTwilioMediaFront(target: string, account: () => { sid: string; authToken: string }, store: MediaStore): Promise<MediaFront> {
  return startFront(target, ({ method, path: route, authorization }, front) => {
    const media = method === 'GET' ? route.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/([^/]+)\/Media\/([^/]+)$/) : null;
    if (!media) return null;
    const { sid, authToken } = account();
    const basic = /^Basic (.+)$/.exec(authorization ?? '');
    const [user, password] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
    if (user !== sid || password !== authToken) return twilioUnauthenticated();
    const mediaSid = decodeURIComponent(media[3]);
    const item = front.media.get(mediaSid);
    if (media[1] !== sid || !item) return json(404, { code: 20404, message: `The requested resource ${route} was not found`, more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 });
    store.media.set(mediaSid, item);
    return { status: 307, headers: { location: store.signed(mediaSid) }, body: '' };
  });
}

/** A voice clip as Messenger carries one (its `audioclip-….mp4`): espeak-ng's speech of `text`, AAC in MP4. */
export function voiceClip(text: string): Buffer {
  requireTools('espeak-ng', 'ffmpeg');
  const scratch = scratchDir();
  try {
    const wav = speak(path.join(scratch.dir, 'speech.wav'), text);
    return readFileSync(encode(wav, path.join(scratch.dir, 'clip.mp4'), ['-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart'], 'mp4'));
  } finally {
    scratch.remove();
  }
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
