import crypto from 'node:crypto';

/** Opaque bearer tokens: a recognisable prefix (for secret scanners) and 256 random bits. */
export function generateToken(): string {
  return `sbt_${crypto.randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  // The one-shot form: no hash object per request (this runs on every authenticated request).
  return crypto.hash('sha256', token, 'hex');
}

/** Constant-time comparison for the admin token. */
export function sameSecret(a: string, b: string): boolean {
  const left = crypto.createHash('sha256').update(a).digest();
  const right = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(left, right);
}
