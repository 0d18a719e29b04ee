import type { CopyOutReader } from './copy-out';
import type { CursorPosition } from './export-cursor';
import { canonicalInstant, isoFromUtcTimestamp } from './export-instant';

/**
 * The JSON text of one export page, written byte by byte from the rows PostgreSQL's
 * `COPY ... TO STDOUT` sends (export-page.ts), each row as it arrives: no JavaScript
 * string or object per row or per value. The output is exactly what JSON.stringify wrote when the route built
 * objects (the tests compare the two on awkward text): members in ExportPageSchema's
 * order, strings escaped as JSON.stringify escapes them.
 *
 * Why bytes: reading the rows with `pg` makes a string per value and an object per row,
 * which JSON.stringify then walks. Measured on 1,000-row pages of the bench's data:
 * this loop takes about 2 ms a page, JSON.stringify of `pg`'s rows alone about 3.5 ms,
 * and COPY's rows arrive faster than `pg`'s query rows (bench/export.ts).
 *
 * COPY's text format, as PostgreSQL writes it (CopyAttributeOutText): a row per line,
 * values separated by a tab, NULL as `\N`; in a value, a backslash, tab, newline,
 * carriage return, backspace, form feed and vertical tab are written as `\\`, `\t`,
 * `\n`, `\r`, `\b`, `\f`, `\v`; every other byte as it is (UTF-8, the connection's
 * client encoding).
 */

/** The statement's columns, in this order (export-page.ts). */
export const EXPORT_COLUMNS = [
  'message_uuid',
  'conversation_uuid',
  'session_uuid',
  'contact_uuid',
  'agent_uuid',
  'channel',
  'channel_label',
  'sender',
  'message_type',
  'content',
  'created_at',
] as const;

const LAST_UUID_COLUMN = 4;
const CREATED_AT = 10;

const TAB = 9;
const NEWLINE = 10;
const BACKSLASH = 92;
const QUOTE = 34;

/** `{"message_uuid":`, `,"conversation_uuid":`, ...: what precedes each value. */
const MEMBER_PREFIXES = EXPORT_COLUMNS.map((name, index) => Uint8Array.from(Buffer.from(`${index === 0 ? '{' : ','}"${name}":`)));
const HEX = Uint8Array.from(Buffer.from('0123456789abcdef'));
const HEAD = Buffer.from('{"meta":{},"messages":[');
/** Room for a row's names and punctuation, and for the pagination member. */
const FIXED_BYTES_PER_ROW = 320;
const TAIL_BYTES = 1024;
/** What a page of 1,000 rows usually needs without growing. */
const INITIAL_BYTES = 512 * 1024;

export interface ExportPageJson {
  /** UTF-8 bytes, lent from the writers' buffers until `release`. */
  json: Buffer;
  /** Gives the buffer back for another page: once the bytes have been sent. */
  release: () => void;
  /** Rows written (at most `limit`). */
  rows: number;
  hasMore: boolean;
}

/**
 * Writes one page: `row` for each COPY row of up to `limit + 1`, then `end`. The first
 * `limit` rows are written; one more only sets `has_more`, and then `nextCursor` turns
 * the last written row's position into the next page's cursor.
 */
export class ExportPageWriter implements CopyOutReader<ExportPageJson> {
  private out = takeBuffer();
  private o = HEAD.copy(this.out, 0);
  private rows = 0;
  private hasMore = false;
  /** Where the last written row's uuid and created_at are in `out`: the next page's cursor. */
  private lastUuidAt = -1;
  private lastCreatedAtStart = -1;
  private lastCreatedAtEnd = -1;

  constructor(
    private readonly limit: number,
    private readonly nextCursor: (last: CursorPosition) => string,
  ) {}

  row(input: Buffer): void {
    if (this.rows >= this.limit) {
      this.hasMore = true;
      return;
    }
    const end = input.length;
    // A value's byte becomes at most 6 (`\u00XX`), so this bound is never exceeded.
    this.reserve(end * 6 + FIXED_BYTES_PER_ROW);
    const out = this.out;
    let o = this.o;
    if (this.rows > 0) out[o++] = 44; // ,
    let i = 0;
    for (let column = 0; column < EXPORT_COLUMNS.length; column++) {
      const prefix = MEMBER_PREFIXES[column];
      for (let k = 0; k < prefix.length; k++) out[o++] = prefix[k];
      if (input[i] === BACKSLASH && input[i + 1] === 78 /* N */ && (input[i + 2] === TAB || input[i + 2] === NEWLINE || i + 2 === end)) {
        out[o++] = 110; // null
        out[o++] = 117;
        out[o++] = 108;
        out[o++] = 108;
        i += 3;
        continue;
      }
      out[o++] = QUOTE;
      if (column <= LAST_UUID_COLUMN) {
        if (column === 0) this.lastUuidAt = o;
        // PostgreSQL's text of a uuid: hex digits and dashes, nothing to escape.
        for (let c = input[i]; c !== TAB && i < end; c = input[++i]) out[o++] = c;
        i++;
      } else if (column === CREATED_AT) {
        let valueEnd = i;
        while (valueEnd < end && input[valueEnd] !== NEWLINE) valueEnd++;
        this.lastCreatedAtStart = o;
        o = writeInstant(input, i, valueEnd, out, o);
        this.lastCreatedAtEnd = o;
        i = valueEnd + 1;
      } else {
        o = writeText(input, i, out, o);
        i = textEnd;
      }
      out[o++] = QUOTE;
    }
    out[o++] = 125; // }
    this.o = o;
    this.rows++;
  }

  /** The page, once every row was written. */
  end(): ExportPageJson {
    const cursor = this.hasMore ? this.nextCursor(this.lastPosition()) : null;
    this.reserve(TAIL_BYTES);
    this.o += this.out.write(`],"pagination":${JSON.stringify({ next_cursor: cursor, has_more: this.hasMore, limit: this.limit })}}`, this.o);
    const out = this.out;
    this.out = Buffer.alloc(0);
    return { json: out.subarray(0, this.o), release: () => giveBuffer(out), rows: this.rows, hasMore: this.hasMore };
  }

  /** Gives the buffer back for another page; the writer is not used after this. */
  abandon(): void {
    giveBuffer(this.out);
    this.out = Buffer.alloc(0);
  }

  private lastPosition(): CursorPosition {
    const uuid = this.out.toString('latin1', this.lastUuidAt, this.lastUuidAt + 36);
    return { uuid, createdAt: canonicalInstant(this.out.toString('latin1', this.lastCreatedAtStart, this.lastCreatedAtEnd))! };
  }

  private reserve(bytes: number): void {
    if (this.o + bytes <= this.out.length) return;
    const larger = Buffer.allocUnsafeSlow(Math.max(2 * this.out.length, this.o + bytes));
    this.out.copy(larger, 0, 0, this.o);
    giveBuffer(this.out);
    this.out = larger;
  }
}

/**
 * Output buffers, lent to a page until it has been sent, then kept for the next pages:
 * pages are written while their rows arrive and sent after, so pages read at the same
 * time each need their own. A new buffer per page (memory outside the JavaScript heap,
 * which counts towards V8's triggers) made it run a full collection every few dozen
 * pages: 55 in a 1.25M-row bench run, against 24 with buffers reused.
 */
const spare: Buffer[] = [];
const MAX_SPARE = 4;
/** A page of long messages grows its buffer; such a buffer is not kept. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;

function takeBuffer(): Buffer {
  return spare.pop() ?? Buffer.allocUnsafeSlow(INITIAL_BYTES);
}

function giveBuffer(buffer: Buffer): void {
  if (buffer.length >= INITIAL_BYTES && buffer.length <= MAX_KEPT_BYTES && spare.length < MAX_SPARE) spare.push(buffer);
}

/** 1 for the bytes a text value copies as they are: everything but control characters, `"` and `\`. */
const PLAIN = new Uint8Array(256).map((_, c) => (c >= 32 && c !== QUOTE && c !== BACKSLASH ? 1 : 0));

/** Where the value writeText last read ends in its input: just after its tab or newline. */
let textEnd = 0;

/**
 * One text value, from COPY's escaping to JSON's, up to the tab or newline that ends
 * it; answers the output's new length and leaves the input's in `textEnd` (one scan,
 * no object to return two numbers).
 */
function writeText(input: Buffer, start: number, out: Buffer, o: number): number {
  let i = start;
  for (;;) {
    let c = input[i++];
    while (PLAIN[c] === 1) {
      out[o++] = c;
      c = input[i++];
    }
    if (c === TAB || c === NEWLINE || c === undefined) {
      textEnd = i;
      return o;
    }
    if (c === BACKSLASH) c = copyEscaped(input[i++]);
    if (PLAIN[c] === 1) {
      out[o++] = c;
      continue;
    }
    out[o++] = BACKSLASH;
    // The short escapes JSON.stringify uses; \u00XX (lowercase hex) for the other control characters.
    if (c === QUOTE || c === BACKSLASH) out[o++] = c;
    else if (c === NEWLINE) out[o++] = 110; // n
    else if (c === TAB) out[o++] = 116; // t
    else if (c === 13) out[o++] = 114; // r
    else if (c === 8) out[o++] = 98; // b
    else if (c === 12) out[o++] = 102; // f
    else {
      out[o++] = 117; // u
      out[o++] = 48;
      out[o++] = 48;
      out[o++] = HEX[c >> 4];
      out[o++] = HEX[c & 15];
    }
  }
}

/** The byte a COPY escape (`\n`, `\t`, ...) stands for; `\\` and anything else stand for themselves. */
function copyEscaped(c: number): number {
  switch (c) {
    case 110: // n
      return NEWLINE;
    case 116: // t
      return TAB;
    case 114: // r
      return 13;
    case 98: // b
      return 8;
    case 102: // f
      return 12;
    case 118: // v
      return 11;
    default:
      return c;
  }
}

/**
 * `created_at`: PostgreSQL's `2024-05-01 10:00:00.5` (UTC, fraction digits trimmed) as
 * the API's `2024-05-01T10:00:00.500Z`, byte by byte; the same rule as
 * isoFromUtcTimestamp (milliseconds, or microseconds when the value has them), which
 * also handles the shapes this API never writes (years past 9999, BC).
 */
function writeInstant(input: Buffer, start: number, end: number, out: Buffer, o: number): number {
  const length = end - start;
  const last = input[end - 1];
  if (length < 19 || length > 26 || input[start + 10] !== 32 || last < 48 || last > 57) {
    return o + out.write(isoFromUtcTimestamp(input.toString('latin1', start, end)), o, 'latin1');
  }
  for (let k = 0; k < 10; k++) out[o++] = input[start + k];
  out[o++] = 84; // T
  for (let k = 11; k < 19; k++) out[o++] = input[start + k];
  out[o++] = 46; // .
  const digits = length === 19 ? 0 : length - 20;
  for (let k = 20; k < length; k++) out[o++] = input[start + k];
  for (let k = digits; k < (digits <= 3 ? 3 : 6); k++) out[o++] = 48;
  out[o++] = 90; // Z
  return o;
}
