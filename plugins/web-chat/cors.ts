import type { Request } from 'express';
import { ForbiddenError } from '../../core';
import type { WebChatChannel } from '../agents';

/** What the public routes allow a browser to send: the visitor token and a JSON body; the rest is CORS-safelisted. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';
const ALLOWED_METHODS = 'GET, POST, OPTIONS';
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = '600';

/**
 * Who may talk to a web chat channel from a browser. A request without `Origin` comes
 * from no page (curl, a server) and is not a CORS matter; the visitor token still
 * guards it. The hosted chat page is served by this server, so its own origin always
 * passes and needs no grant; another page's origin must be one of the channel's
 * `allowed_origins`, compared exactly as browsers send it. Any other origin gets a 403
 * and no `Access-Control-Allow-Origin`, so its page cannot even read the refusal.
 *
 * Sets the response headers and returns them (for a Reply); throws ForbiddenError for a
 * refused origin.
 */
export function grantOrigin(req: Request, channel: Pick<WebChatChannel, 'allowed_origins'>): Record<string, string> {
  const res = req.res!;
  // Caches keep apart the answers to different origins.
  res.setHeader('Vary', 'Origin');
  const origin = req.get('origin');
  if (origin === undefined || isOwnOrigin(req, origin)) return { Vary: 'Origin' };
  if (!channel.allowed_origins.includes(origin)) throw new ForbiddenError('This origin may not use this chat');
  res.setHeader('Access-Control-Allow-Origin', origin);
  return { Vary: 'Origin', 'Access-Control-Allow-Origin': origin };
}

/** The headers of a preflight answer for a granted origin. */
export function preflightHeaders(granted: Record<string, string>): Record<string, string> {
  return {
    ...granted,
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
  };
}

/**
 * Whether `origin` is this server as the browser addressed it: its host (and port) is
 * the request's Host. The scheme is not compared: behind a proxy that ends TLS the
 * request may arrive as http while the page was https, and only this server answers
 * on its own host under either scheme.
 */
export function isOwnOrigin(req: Request, origin: string): boolean {
  const host = req.get('host');
  if (!host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
