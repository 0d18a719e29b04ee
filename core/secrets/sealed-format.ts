/**
 * The stored form of a secret: `sb1:<keyId>:<base64url(iv | ciphertext | tag)>`.
 * `sb1` versions the whole scheme (AES-256-GCM, 12-byte IV, 16-byte tag, associated
 * data `tenantUuid|entity|field`), so a later scheme can be told apart row by row.
 * The key id is in clear so decryption picks the right key and rotation can find
 * rows under old keys with a plain prefix test in SQL.
 */
export const SEALED_VERSION = 'sb1';
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

export interface SealedParts {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

const SEALED = /^sb1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]+)$/;

export function formatSealed(parts: SealedParts): string {
  const payload = Buffer.concat([parts.iv, parts.ciphertext, parts.tag]).toString('base64url');
  return `${SEALED_VERSION}:${parts.keyId}:${payload}`;
}

/** The parts of a stored secret, or undefined when the value is not in this format. */
export function parseSealed(value: string): SealedParts | undefined {
  const match = typeof value === 'string' ? SEALED.exec(value) : null;
  if (!match) return undefined;
  const payload = Buffer.from(match[2]!, 'base64url');
  if (payload.length < IV_BYTES + TAG_BYTES) return undefined;
  return {
    keyId: match[1]!,
    iv: payload.subarray(0, IV_BYTES),
    ciphertext: payload.subarray(IV_BYTES, payload.length - TAG_BYTES),
    tag: payload.subarray(payload.length - TAG_BYTES),
  };
}

/** The prefix of every value sealed under `keyId` (rotation selects rows without it). */
export function sealedPrefix(keyId: string): string {
  return `${SEALED_VERSION}:${keyId}:`;
}
