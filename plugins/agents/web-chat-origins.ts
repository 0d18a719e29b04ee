import { randomBytes } from 'node:crypto';
import type { FieldErrorList } from './validation/field-errors';

/**
 * A web_chat channel's `config.allowed_origins`: the exact origins browsers send in
 * `Origin` (scheme, host, port when not the default; no path, no trailing slash), so the
 * web-chat plugin compares them as strings.
 */
export function checkAllowedOrigins(config: Record<string, unknown> | undefined, errors: FieldErrorList, path = 'config.allowed_origins'): void {
  const origins = config?.allowed_origins;
  if (origins === undefined) return;
  if (!Array.isArray(origins)) return void errors.add(path, 'must be an array of origins such as https://shop.example.com');
  origins.forEach((origin, index) => {
    if (!isOrigin(origin)) errors.add(`${path}.${index}`, 'must be an origin: http(s)://host[:port], with no path, query or trailing slash');
  });
}

function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 255) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
}

/** `pk_` and 24 url-safe characters (144 random bits). */
export const newPublicKey = (): string => `pk_${randomBytes(18).toString('base64url')}`;
