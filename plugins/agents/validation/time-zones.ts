const known = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/**
 * Whether `name` is an IANA time zone name (`Europe/Madrid`, `UTC`, and the
 * backward-compatible aliases such as `US/Eastern`). Offsets like `+01:00` are
 * refused: they are not zones and do not follow daylight saving time.
 */
export function isTimeZone(name: string): boolean {
  if (known.has(name)) return true;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
