/** Answers by zone name; a tenant's contacts use few zones, and building a DateTimeFormat costs tens of microseconds. */
const known = new Map<string, string | null>();
const KNOWN_MAX = 2_000;

/**
 * The IANA time zone named by `text` (any letter case), as the runtime spells it
 * (`europe/madrid` -> `Europe/Madrid`); undefined when there is no such zone. Offsets
 * (`+01:00`), which Intl also takes, are refused: a contact's zone must follow its
 * daylight saving time, which a fixed offset does not.
 */
export function ianaTimeZone(text: string): string | undefined {
  const name = text.trim();
  const cached = known.get(name);
  if (cached !== undefined) return cached ?? undefined;
  let zone: string | null = null;
  if (/^[A-Za-z]/.test(name)) {
    try {
      zone = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      zone = null;
    }
  }
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(name, zone);
  return zone ?? undefined;
}
