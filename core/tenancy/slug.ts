/** A tenant slug is a DNS label: 1-63 of a-z, 0-9 and '-', not starting or ending in '-'. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';
const slug = new RegExp(SLUG_PATTERN);

export function isValidSlug(value: string): boolean {
  return slug.test(value);
}
