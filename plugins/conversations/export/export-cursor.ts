import { createHash } from 'node:crypto';
import { canonicalInstant } from './export-instant';

/**
 * The export's opaque cursor: the position after the last row a page returned (its
 * `created_at`, exact to the microsecond, and its uuid), bound to the filters it was
 * issued for, with a checksum so that a mangled or edited cursor is refused instead
 * of silently moving the reader.
 *
 * The checksum is not a signature: anyone can forge a cursor, and nothing is gained
 * by it, since a cursor only chooses where to start reading the caller's own tenant.
 */

/** What a cursor depends on besides its position: a cursor is only valid for the same ones. */
export interface ExportFilters {
  tenantUuid: string;
  channel: string | null;
  /** Canonical instants (export-instant.ts). */
  from: string | null;
  to: string | null;
}

export interface CursorPosition {
  /** Canonical instant of the last row read. */
  createdAt: string;
  uuid: string;
}

const VERSION = 'm1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export const filtersFingerprint = (filters: ExportFilters): string =>
  digest(`filters|${filters.tenantUuid}|${filters.channel ?? ''}|${filters.from ?? ''}|${filters.to ?? ''}`);

export function encodeCursor(position: CursorPosition, fingerprint: string): string {
  const body = `${VERSION}|${position.createdAt}|${position.uuid}|${fingerprint}`;
  return Buffer.from(`${body}|${digest(body)}`).toString('base64url');
}

export type CursorReading = { position: CursorPosition } | { problem: string };

/** The position a cursor names, or why it cannot be used with these filters. */
export function decodeCursor(cursor: string, fingerprint: string): CursorReading {
  const malformed = { problem: 'is not a cursor this export issued' };
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (parts.length !== 5) return malformed;
  const [version, createdAt, uuid, cursorFingerprint, checksum] = parts;
  if (checksum !== digest(parts.slice(0, 4).join('|')) || version !== VERSION) return malformed;
  const instant = canonicalInstant(createdAt);
  if (instant !== createdAt || !UUID.test(uuid)) return malformed;
  if (cursorFingerprint !== fingerprint) return { problem: 'was issued for other filters (channel, from, to): start again without a cursor' };
  return { position: { createdAt, uuid } };
}
