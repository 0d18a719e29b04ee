import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A visitor token: `vt_` and 43 url-safe characters (256 random bits). */
export const newVisitorToken = (): string => `vt_${randomBytes(32).toString('base64url')}`;

export const hashVisitorToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Compares in constant time, so the answer's timing says nothing about the stored hash. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const given = Buffer.from(hashVisitorToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
