import { Type, ValidationError } from '../../core';
import { Options, defineAction } from '../flows';
import { googleCalendarAuth, googleCalendarDeps } from './auth';
import { VENDOR, calendarApi } from './calendar-api';
import { freeGaps, isoSpan, mergeSpans, slotsIn, type Span } from './free-slots';
import { DateTime } from './inputs';

/** Google's freebusy.query takes at most 50 calendars (calendarExpansionMax). */
export const MAX_FREE_BUSY_CALENDARS = 50;
/** Slots listed at most: enough to offer choices, bounded so a month of 5-minute slots is not a huge output. */
export const MAX_SLOTS = 100;
const DEFAULT_DURATION_MINUTES = 30;

const span = (period: { start: string; end: string }): Span => ({ start: Date.parse(period.start), end: Date.parse(period.end) });

const findFreeBusy = defineAction({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  key: 'find_free_busy',
  name: 'Find free and busy time',
  description:
    'Asks Google when the calendars are busy between `time_min` and `time_max`, and works out when they are all free. The output is ' +
    '`{time_min, time_max, busy, calendars, free, slots}`: `busy` the periods any calendar is busy (merged), `calendars` each calendar’s own busy ' +
    `periods, \`free\` the gaps at least \`duration_minutes\` long (${DEFAULT_DURATION_MINUTES} by default), \`slots\` back-to-back slots of exactly that ` +
    `length in those gaps (at most ${MAX_SLOTS}). Times are UTC. A calendar Google cannot read fails the step, since its busy time would be unknown.`,
  input: Type.Object(
    {
      calendar_ids: Options(
        'calendars',
        {},
        Type.Array(Type.String({ minLength: 1, maxLength: 1024, description: 'A calendar id, or `primary`' }), {
          minItems: 1,
          maxItems: MAX_FREE_BUSY_CALENDARS,
          uniqueItems: true,
          description: 'The calendars whose busy time counts',
        }),
      ),
      time_min: DateTime('The start of the period asked about: an RFC 3339 date-time with its offset'),
      time_max: DateTime('The end of the period (after `time_min`)'),
      duration_minutes: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1440, description: `The length of the free slots wanted, in minutes (${DEFAULT_DURATION_MINUTES} by default)` }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSample: {
    time_min: '2025-03-10T08:00:00.000Z',
    time_max: '2025-03-10T10:00:00.000Z',
    busy: [{ start: '2025-03-10T08:30:00.000Z', end: '2025-03-10T09:00:00.000Z' }],
    calendars: { primary: { busy: [{ start: '2025-03-10T08:30:00.000Z', end: '2025-03-10T09:00:00.000Z' }] } },
    free: [
      { start: '2025-03-10T08:00:00.000Z', end: '2025-03-10T08:30:00.000Z' },
      { start: '2025-03-10T09:00:00.000Z', end: '2025-03-10T10:00:00.000Z' },
    ],
    slots: [
      { start: '2025-03-10T08:00:00.000Z', end: '2025-03-10T08:30:00.000Z' },
      { start: '2025-03-10T09:00:00.000Z', end: '2025-03-10T09:30:00.000Z' },
      { start: '2025-03-10T09:30:00.000Z', end: '2025-03-10T10:00:00.000Z' },
    ],
  },
  async run(context) {
    const { input } = context;
    const range = { start: Date.parse(input.time_min), end: Date.parse(input.time_max) };
    if (range.end <= range.start) throw ValidationError.field('config.time_max', 'must be after `time_min`');
    const answer = await calendarApi(context).freeBusy({
      timeMin: new Date(range.start).toISOString(),
      timeMax: new Date(range.end).toISOString(),
      items: input.calendar_ids.map((id) => ({ id })),
    });
    const calendars: Record<string, { busy: Array<{ start: string; end: string }> }> = {};
    const busy: Span[] = [];
    for (const id of input.calendar_ids) {
      const entry = answer.calendars?.[id];
      const reasons = (entry?.errors ?? []).map((error) => error.reason ?? 'unknown').join(', ');
      if (!entry || reasons) throw new Error(`${VENDOR} could not tell the busy time of calendar ${id} (${reasons || 'not in its answer'}): check the calendar id and that the account may see it`);
      const own = (entry.busy ?? []).map(span).filter((period) => !Number.isNaN(period.start) && !Number.isNaN(period.end));
      calendars[id] = { busy: mergeSpans(own).map(isoSpan) };
      busy.push(...own);
    }
    const length = (input.duration_minutes ?? DEFAULT_DURATION_MINUTES) * 60_000;
    const free = freeGaps(range, busy, length);
    return {
      time_min: new Date(range.start).toISOString(),
      time_max: new Date(range.end).toISOString(),
      busy: mergeSpans(busy).map(isoSpan),
      calendars,
      free: free.map(isoSpan),
      slots: slotsIn(free, length, MAX_SLOTS).map(isoSpan),
    };
  },
});

export const freeBusyActions = [findFreeBusy];
