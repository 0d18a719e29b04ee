import { createHash } from 'node:crypto';
import { Type, ValidationError } from '../../core';
import { defineAction, expectOk } from '../flows';
import { googleCalendarAuth, googleCalendarDeps } from './auth';
import { VENDOR, calendarApi } from './calendar-api';
import { eventBody } from './event-body';
import { EVENT_SAMPLE, eventJson } from './event-json';
import type { GoogleEvent } from './google-types';
import { CalendarId, EventId, SendUpdates, eventFields } from './inputs';

/**
 * The id Google gives the event a step creates, derived from the step's idempotency key:
 * Google lets a client choose an event's id (base32hex, `0-9a-v`, 5 to 1024 characters)
 * and answers 409 to a second insert with the same id, so a retried step can never make a
 * second event. A base-32 BigInt prints exactly those digits.
 */
export const eventIdFor = (idempotencyKey: string): string => BigInt(`0x${createHash('sha256').update(idempotencyKey).digest('hex')}`).toString(32).padStart(52, '0');

/** The event's members as create takes them: a title and times required, the rest optional. */
const eventMembers = {
  summary: eventFields.summary,
  start: eventFields.start,
  end: eventFields.end,
  all_day: Type.Optional(eventFields.all_day),
  time_zone: Type.Optional(eventFields.time_zone),
  description: Type.Optional(eventFields.description),
  location: Type.Optional(eventFields.location),
  attendees: Type.Optional(eventFields.attendees),
};

const createEvent = defineAction({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  key: 'create_event',
  name: 'Create event',
  description:
    'Adds an event to a calendar: timed from `start` to `end`, or all-day with `all_day`. Guests in `attendees` are emailed only as `send_updates` says. ' +
    'The output is the event Google stored. A step retried after a failure never adds a second event: the retry answers the event the first try made.',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      ...eventMembers,
      send_updates: SendUpdates,
    },
    { additionalProperties: false },
  ),
  outputSample: EVENT_SAMPLE,
  async run(context) {
    const { input, idempotencyKey } = context;
    const api = calendarApi(context);
    const id = eventIdFor(idempotencyKey);
    const body = { id, ...eventBody(input) };
    const response = await api.insertEvent(input.calendar_id, body, { sendUpdates: input.send_updates }, idempotencyKey);
    // 409: an earlier try of this step made the event already (its id is this step's); answer that one.
    if (response.status === 409) return eventJson(input.calendar_id, await api.getEvent(input.calendar_id, id));
    return eventJson(input.calendar_id, expectOk(VENDOR, response, `create an event in calendar ${input.calendar_id}`).json<GoogleEvent>());
  },
});

const updateEvent = defineAction({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  key: 'update_event',
  name: 'Update event',
  description:
    'Changes the members given and keeps the others. `start` and `end` go together (with `all_day` and `time_zone` when wanted); `attendees` replaces the ' +
    'guest list. The output is the event afterwards; an event that does not exist fails the step.',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      event_id: EventId,
      // Each member optional: an update names only what changes.
      ...Type.Partial(Type.Object(eventMembers)).properties,
      send_updates: SendUpdates,
    },
    { additionalProperties: false },
  ),
  outputSample: { ...EVENT_SAMPLE, summary: 'Intro call with Ada (moved)', updated: '2025-03-02T08:00:00.000Z' },
  async run(context) {
    const { calendar_id: calendarId, event_id: eventId, send_updates: sendUpdates, ...changes } = context.input;
    const body = eventBody(changes);
    if (Object.keys(body).length === 0) throw ValidationError.field('config', 'changes nothing: give at least one of summary, description, location, start and end, attendees');
    const updated = await calendarApi(context).patchEvent(calendarId, eventId, body, { sendUpdates });
    return eventJson(calendarId, updated);
  },
});

const deleteEvent = defineAction({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  key: 'delete_event',
  name: 'Delete event',
  description:
    'Deletes an event (guests are emailed only as `send_updates` says). The output is `{id, deleted}`: `deleted` is false when the event was gone ' +
    'already (deleted before, or never there), which is not an error, so a retried step succeeds.',
  input: Type.Object({ calendar_id: CalendarId, event_id: EventId, send_updates: SendUpdates }, { additionalProperties: false }),
  outputSample: { id: EVENT_SAMPLE.id, deleted: true },
  async run(context) {
    const { calendar_id: calendarId, event_id: eventId, send_updates: sendUpdates } = context.input;
    const response = await calendarApi(context).deleteEvent(calendarId, eventId, { sendUpdates });
    // Google answers 410 for an event deleted before and 404 for an id it never had.
    if (response.status === 404 || response.status === 410) return { id: eventId, deleted: false };
    expectOk(VENDOR, response, `delete event ${eventId}`);
    return { id: eventId, deleted: true };
  },
});

export const eventActions = [createEvent, updateEvent, deleteEvent];
