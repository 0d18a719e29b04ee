/** Time ranges in milliseconds since the epoch, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** The spans merged where they overlap or touch, in time order. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** The gaps of `range` that no busy span covers, each at least `minLength` long. */
export function freeGaps(range: Span, busy: readonly Span[], minLength: number): Span[] {
  const gaps: Span[] = [];
  let cursor = range.start;
  for (const span of mergeSpans(busy)) {
    if (span.end <= range.start) continue;
    if (span.start >= range.end) break;
    if (span.start > cursor) gaps.push({ start: cursor, end: span.start });
    cursor = Math.max(cursor, span.end);
  }
  if (cursor < range.end) gaps.push({ start: cursor, end: range.end });
  return gaps.filter((gap) => gap.end - gap.start >= minLength);
}

/** Back-to-back slots of exactly `length` from the start of each gap, at most `max` in all. */
export function slotsIn(gaps: readonly Span[], length: number, max: number): Span[] {
  const slots: Span[] = [];
  for (const gap of gaps) {
    for (let start = gap.start; start + length <= gap.end && slots.length < max; start += length) slots.push({ start, end: start + length });
  }
  return slots;
}

export const isoSpan = (span: Span) => ({ start: new Date(span.start).toISOString(), end: new Date(span.end).toISOString() });
