/** Statuses whose Location the client follows (each hop passes the same checks as the first). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Headers that authenticate the caller to one origin. They are dropped when a
 * redirect leaves that origin, so a server cannot forward a secret elsewhere.
 */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export interface Hop {
  method: string;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
}

/**
 * The request to send to a redirect's target, as browsers and fetch do it: 303
 * turns anything but HEAD into a GET without a body; 301/302 do the same for POST
 * (servers expect it); 307/308 repeat the request as it was.
 */
export function redirectedHop(status: number, hop: Hop, from: URL, to: URL): Hop {
  const headers = { ...hop.headers };
  let { method, body } = hop;
  if ((status === 303 && method !== 'HEAD' && method !== 'GET') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (from.origin !== to.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return { method, headers, body };
}
