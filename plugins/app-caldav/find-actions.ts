import { Type, ValidationError } from '../../core';
import { defineAction, Options } from '../flows';
import { caldavAuth } from './auth';
import { clientFor, DAY_MS } from './connection';
import { EVENT_SAMPLE, eventOutput } from './event-actions';
import { busyIntervals, type Interval } from './ical';

/** A calendar-query over more than this is refused: it would read a server's whole history. */
const MAX_RANGE_DAYS = 366;
const MAX_SLOTS = 500;
const MAX_EVENTS = 500;

const CalendarId = Options('calendars', {}, Type.String({ minLength: 1, maxLength: 2048, description: 'The calendar: its path on the server, from the calendars list' }));
const rangeSchema = {
  from: Type.String({ format: 'date-time', description: 'Start of the time range (ISO 8601 date-time with its offset)' }),
  to: Type.String({ format: 'date-time', description: `End of the time range, after from and at most ${MAX_RANGE_DAYS} days later` }),
};

function rangeOf(input: { from: string; to: string }): Interval {
  const range = { start: new Date(input.from), end: new Date(input.to) };
  if (range.end <= range.start) throw new ValidationError({ 'config.to': ['must be after from'] });
  if (range.end.getTime() - range.start.getTime() > MAX_RANGE_DAYS * DAY_MS) throw new ValidationError({ 'config.to': [`must be at most ${MAX_RANGE_DAYS} days after from`] });
  return range;
}

export const findEvents = defineAction({
  auth: caldavAuth,
  key: 'find_events',
  name: 'Find events',
  description: `The events of a calendar overlapping a time range (a recurring series once), soonest first, at most ${MAX_EVENTS}; optionally only those whose title holds a text`,
  input: Type.Object(
    {
      calendar_id: CalendarId,
      ...rangeSchema,
      search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only events whose title (SUMMARY) holds this text, ignoring case' })),
    },
    { additionalProperties: false },
  ),
  outputSample: { events: [EVENT_SAMPLE], truncated: false },
  async run(context) {
    const range = rangeOf(context.input);
    const client = clientFor(context);
    const objects = await client.query(client.calendarUrl(context.input.calendar_id), { from: range.start, to: range.end }, context.input.search ?? null);
    const events = objects
      .map((object) => eventOutput(context.input.calendar_id, object))
      .filter((event) => event.start !== undefined)
      .sort((a, b) => String(a.start ?? '').localeCompare(String(b.start ?? '')));
    return { events: events.slice(0, MAX_EVENTS), truncated: events.length > MAX_EVENTS };
  },
});

/** Busy intervals sorted and merged where they overlap or touch. */
function merge(intervals: Interval[]): Interval[] {
  const merged: Interval[] = [];
  for (const interval of [...intervals].sort((a, b) => a.start.getTime() - b.start.getTime())) {
    const last = merged.at(-1);
    if (last && interval.start <= last.end) last.end = new Date(Math.max(last.end.getTime(), interval.end.getTime()));
    else merged.push({ ...interval });
  }
  return merged;
}

/** The gaps of [range] between the busy intervals. */
function gaps(range: Interval, busy: Interval[]): Interval[] {
  const free: Interval[] = [];
  let cursor = range.start;
  for (const interval of busy) {
    if (interval.start > cursor) free.push({ start: cursor, end: interval.start < range.end ? interval.start : range.end });
    if (interval.end > cursor) cursor = interval.end;
  }
  if (cursor < range.end) free.push({ start: cursor, end: range.end });
  return free.filter((gap) => gap.end > gap.start);
}

const iso = (interval: Interval) => ({ start: interval.start.toISOString(), end: interval.end.toISOString() });

export const findFreeBusy = defineAction({
  auth: caldavAuth,
  key: 'find_free_busy',
  name: 'Find free and busy time',
  description:
    'The busy intervals of a calendar over a time range (recurring events expanded; cancelled and transparent events left out), the free gaps between them, and with slot_minutes the free slots of that length',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      ...rangeSchema,
      slot_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 1440, description: `Also list free slots of this many minutes, back to back from the start of each gap (at most ${MAX_SLOTS})` })),
    },
    { additionalProperties: false },
  ),
  outputSample: {
    calendar_id: '/alice/work/',
    from: '2026-03-02T08:00:00.000Z',
    to: '2026-03-02T12:00:00.000Z',
    busy: [{ start: '2026-03-02T09:00:00.000Z', end: '2026-03-02T10:00:00.000Z' }],
    free: [
      { start: '2026-03-02T08:00:00.000Z', end: '2026-03-02T09:00:00.000Z' },
      { start: '2026-03-02T10:00:00.000Z', end: '2026-03-02T12:00:00.000Z' },
    ],
    slots: [{ start: '2026-03-02T08:00:00.000Z', end: '2026-03-02T08:30:00.000Z' }],
  },
  async run(context) {
    const range = rangeOf(context.input);
    const client = clientFor(context);
    // calendar-query rather than free-busy-query: servers such as Radicale do not all answer the latter.
    const objects = await client.query(client.calendarUrl(context.input.calendar_id), { from: range.start, to: range.end });
    const busy = merge(objects.flatMap((object) => busyIntervals(object.ics, range)).map((interval) => ({ start: interval.start < range.start ? range.start : interval.start, end: interval.end > range.end ? range.end : interval.end })));
    const free = gaps(range, busy);
    const output: Record<string, unknown> = { calendar_id: context.input.calendar_id, from: range.start.toISOString(), to: range.end.toISOString(), busy: busy.map(iso), free: free.map(iso) };
    const minutes = context.input.slot_minutes;
    if (minutes !== undefined) {
      const slots: Interval[] = [];
      const length = minutes * 60_000;
      for (const gap of free) {
        for (let start = gap.start.getTime(); start + length <= gap.end.getTime() && slots.length < MAX_SLOTS; start += length) slots.push({ start: new Date(start), end: new Date(start + length) });
      }
      output.slots = slots.map(iso);
    }
    return output;
  },
});

