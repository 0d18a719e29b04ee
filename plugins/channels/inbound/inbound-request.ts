import type { Request } from 'express';
import { BadRequestError, HttpError } from '../../../core';
import type { InboundRequest } from '../driver';

/** The most a provider's webhook may send: larger is refused (413) before anything is read from it. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The body exactly as sent. A JSON body was read by the kernel, which keeps its bytes
 * on `req.rawBody`; any other (Twilio's form fields) is still in the request stream.
 */
async function rawBodyOf(req: Request): Promise<Buffer> {
  const kept = (req as Request & { rawBody?: Buffer }).rawBody;
  if (kept) return kept;
  if (req.readableEnded || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'The webhook body is larger than 1 MiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parsedBody(req: Request, raw: Buffer): unknown {
  if ((req as Request & { rawBody?: Buffer }).rawBody) return req.body;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  if (raw.length === 0) return {};
  throw new BadRequestError('A channel webhook body is JSON or form fields (application/x-www-form-urlencoded)');
}

function headersOf(req: Request): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function queryOf(req: Request): Record<string, string> {
  const query: Record<string, string> = {};
  const index = req.originalUrl.indexOf('?');
  if (index === -1) return query;
  // Read from the URL as sent (`hub.verify_token` keeps its dot; express's parser would nest it).
  for (const [name, value] of new URLSearchParams(req.originalUrl.slice(index + 1))) query[name] = value;
  return query;
}

/** This server's public origin: PUBLIC_BASE_URL when set, else as the request reached it (with TRUST_PROXY, its forwarded scheme and host). */
export function publicOrigin(req: Request, publicBaseUrl: string): string {
  return publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : `${req.protocol}://${req.host}`;
}

/** The request as a driver reads it: the URL the provider called, the bytes it signed, the body parsed. */
export async function inboundRequest(req: Request, publicBaseUrl: string): Promise<InboundRequest> {
  const rawBody = await rawBodyOf(req);
  return {
    method: req.method === 'GET' ? 'GET' : 'POST',
    url: `${publicOrigin(req, publicBaseUrl)}${req.originalUrl}`,
    headers: headersOf(req),
    rawBody,
    body: req.method === 'GET' ? {} : parsedBody(req, rawBody),
    query: queryOf(req),
  };
}
