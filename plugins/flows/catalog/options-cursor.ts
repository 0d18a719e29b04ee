import crypto from 'node:crypto';
import type { FlowOption } from '../app/flow-app';

/**
 * The server's cursor over a list it pages itself, opaque to clients. It holds the
 * position reached and digests of the last options sent, so the next page starts after
 * the last of them still in the list, even when options were added or removed before it
 * between two requests (an offset alone would repeat or skip them); and a digest of the
 * list and search it was made for, so a cursor sent with another `kind`, `params` or
 * `search` is refused instead of paging the wrong list. Digests keep it short whatever
 * the values are.
 */
export interface ListPosition {
  /** Options sent so far. */
  offset: number;
  /** `valueKey`s of the last options sent (at most `REMEMBERED`), the last one first. */
  last: string[];
}

const REMEMBERED = 3;

const digest = (text: string, length: number) => crypto.createHash('sha256').update(text).digest('base64url').slice(0, length);
const valueKey = (value: string) => digest(value, 11);

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are one list. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const normalizeSearch = (search: string | null | undefined): string => search?.trim().toLowerCase() ?? '';

/** What a cursor is bound to: the list (`kind`, `params`) and the search. */
export const listDigest = (kind: string, params: unknown, search: string | null | undefined): string => digest(canonical([kind, params ?? {}, normalizeSearch(search)]), 16);

/** The cursor of the page that ends with `sent` (the options sent so far: their last ones count). */
export function encodeCursor(offset: number, sent: readonly FlowOption[], list: string): string {
  const last = sent.slice(-REMEMBERED).reverse().map((option) => valueKey(option.value));
  return Buffer.from(`v1:${offset}:${list}:${last.join('.')}`).toString('base64url');
}

/** The position a cursor holds, `'elsewhere'` when it was made for another list or search, null when it is not one of ours. */
export function decodeCursor(cursor: string, list: string): ListPosition | 'elsewhere' | null {
  const match = /^v1:(\d{1,9}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{11}(?:\.[A-Za-z0-9_-]{11}){0,2})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) return null;
  if (match[2] !== list) return 'elsewhere';
  return { offset: Number(match[1]), last: match[3].split('.') };
}

/** Where the next page starts: after the last option sent that is still in the list; at the same offset when none is. */
export function startOf(matching: readonly FlowOption[], position: ListPosition | null): number {
  if (!position) return 0;
  const { offset, last } = position;
  // Nothing moved (and an option value listed twice does not send a page twice).
  if (offset > 0 && offset <= matching.length && valueKey(matching[offset - 1].value) === last[0]) return offset;
  const keys = matching.map((option) => valueKey(option.value));
  for (const key of last) {
    const index = keys.indexOf(key);
    if (index >= 0) return index + 1;
  }
  return Math.min(offset, matching.length);
}
