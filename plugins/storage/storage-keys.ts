/** A key no driver stores under: it could leave the store's folder, or means different things on different stores. */
export class InvalidStorageKeyError extends Error {
  override readonly name = 'InvalidStorageKeyError';
}

/** S3's own limit on an object key, in UTF-8 bytes; the fs driver keeps to it too so a key works on both. */
const MAX_KEY_BYTES = 1024;

/**
 * The key's `/`-separated segments, once it is known to stay inside the store: both
 * drivers take the same keys, so a store can move from one to the other. A segment may
 * not start with `.`: that refuses `.` and `..`, and leaves dot-names to the fs driver's
 * temporary and content-type files, which no key can then collide with.
 */
export function storageKeySegments(key: string): string[] {
  const refuse = (why: string) => new InvalidStorageKeyError(`storage key ${JSON.stringify(key.slice(0, 200))} ${why}`);
  if (typeof key !== 'string' || key.length === 0) throw new InvalidStorageKeyError('storage key is empty');
  if (key.includes('\0')) throw refuse('contains NUL');
  // Control characters break S3's XML answers and terminals alike.
  if (/[\u0001-\u001f\u007f]/.test(key)) throw refuse('contains a control character');
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) throw refuse('is absolute');
  // A separator on Windows, a plain character elsewhere: refused so a key means one path everywhere.
  if (key.includes('\\')) throw refuse('contains a backslash');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw refuse(`is longer than ${MAX_KEY_BYTES} bytes`);
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') throw refuse('has an empty segment');
    if (segment === '.' || segment === '..') throw refuse(`has a "${segment}" segment`);
    if (segment.startsWith('.')) throw refuse('has a segment starting with "."');
  }
  return segments;
}

/** Whether the drivers take `key`: a listing skips what an operator or another program put in the store under names no key can have. */
export function isStorageKey(key: string): boolean {
  try {
    storageKeySegments(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * A listing's prefix split where its last `/` is: the folder it names (whole segments,
 * checked as a key's are; empty for the store's top) and the start of a name below it
 * (empty when the prefix ends with `/`), so a prefix can no more leave the store than a key.
 */
export function storagePrefixParts(prefix: string): { folder: string[]; partial: string } {
  if (typeof prefix !== 'string') throw new InvalidStorageKeyError('storage prefix is not a string');
  const cut = prefix.lastIndexOf('/');
  const folder = cut < 0 ? [] : storageKeySegments(prefix.slice(0, cut));
  const partial = prefix.slice(cut + 1);
  if (partial) storageKeySegments(partial);
  return { folder, partial };
}
