/**
 * Whether a value is an absolute http(s) URL with a host, written with its `//`
 * (`http:example.com`, which URL would read as a host, is refused), as a body member
 * that names a callback or a page must be. Whether the address may be called is the
 * egress client's decision, at call time.
 */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
