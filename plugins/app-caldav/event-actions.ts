import { createHash } from 'node:crypto';
import { Type, ValidationError } from '../../core';
import { defineAction, expectOk, Options, VendorError } from '../flows';
import { caldavAuth } from './auth';
import { SERVICE, type CaldavClient } from './caldav-client';
import { clientFor } from './connection';
import { changeEventObject, newEventObject, readEvent, type EventChanges } from './ical';

/** The inputs every event action shares, linked to the app's option lists. */
const CalendarId = Options('calendars', {}, Type.String({ minLength: 1, maxLength: 2048, description: 'The calendar: its path on the server, from the calendars list' }));
const EventId = Options(
  'events',
  { params: { calendar_id: '{{config.calendar_id}}' } },
  Type.String({ minLength: 1, maxLength: 2048, description: 'The event: its path on the server, from the events list or an earlier step’s `id`' }),
);
const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const fieldsSchema = {
  summary: Type.String({ maxLength: 1000, description: 'The title (SUMMARY)' }),
  description: Type.String({ maxLength: 20000, description: 'The notes (DESCRIPTION)' }),
  location: Type.String({ maxLength: 1000, description: 'Where (LOCATION)' }),
  start: DateTime('When it starts: an ISO 8601 date-time with its offset (2026-03-01T14:00:00+01:00); stored in UTC'),
  end: DateTime('When it ends (after start); stored in UTC'),
  all_day: Type.Boolean({ description: 'An all-day event: only the (UTC) dates of start and end count, end being the day after the last one' }),
};

/** An event as the actions and the trigger output it. */
export function eventOutput(calendarId: string, object: { href: string; etag: string | null; ics: string }) {
  return { id: object.href, calendar_id: calendarId, etag: object.etag, ...readEvent(object.ics) };
}

export const EVENT_SAMPLE = {
  id: '/alice/work/6f1c2a4e-3b0d-4c55-9d7e-2a1b3c4d5e6f.ics',
  calendar_id: '/alice/work/',
  etag: '"b1946ac92492d2347c6235b4d2611184"',
  uid: '6f1c2a4e-3b0d-4c55-9d7e-2a1b3c4d5e6f',
  summary: 'Onboarding call',
  description: 'Walk through the setup',
  location: 'Room 2',
  start: '2026-03-01T13:00:00.000Z',
  end: '2026-03-01T13:30:00.000Z',
  all_day: false,
  recurring: false,
  status: null,
};

/** 422 at `config.end` when the event would end before it starts. */
function checkOrder(start: string | undefined, end: string | undefined): void {
  if (start !== undefined && end !== undefined && new Date(end).getTime() <= new Date(start).getTime()) {
    throw new ValidationError({ 'config.end': ['must be after start'] });
  }
}

/** A UID the same for every retry of a step (its idempotency key), so a repeated create finds the event it made instead of making another. */
function uidFor(idempotencyKey: string): string {
  const hex = createHash('sha256').update(`caldav-event:${idempotencyKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const etagOf = (response: { headers: Record<string, string | string[] | undefined> }): string | null => {
  const value = response.headers.etag;
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

export const createEvent = defineAction({
  auth: caldavAuth,
  key: 'create_event',
  name: 'Create an event',
  description: 'Adds an event to a calendar (a new .ics resource, never overwriting one)',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      summary: fieldsSchema.summary,
      start: fieldsSchema.start,
      end: fieldsSchema.end,
      description: Type.Optional(fieldsSchema.description),
      location: Type.Optional(fieldsSchema.location),
      all_day: Type.Optional(fieldsSchema.all_day),
    },
    { additionalProperties: false },
  ),
  outputSample: EVENT_SAMPLE,
  async run(context) {
    const { calendar_id: calendarId, ...fields } = context.input;
    checkOrder(fields.start, fields.end);
    const client = clientFor(context);
    const calendar = client.calendarUrl(calendarId);
    const uid = uidFor(context.idempotencyKey);
    const url = new URL(`${uid}.ics`, calendar);
    const ics = newEventObject(uid, fields);
    const response = await client.put(url, ics, { create: true }, context.idempotencyKey);
    // 412: the resource exists, made by an earlier try of this very step (the UID comes from its key).
    if (response.status === 412) return eventOutput(calendarId, await client.get(url, 'read the event an earlier try created'));
    expectOk(SERVICE, response, 'create the event');
    return eventOutput(calendarId, { href: url.pathname, etag: etagOf(response), ics });
  },
});

/** GET, change, PUT with If-Match; once more when someone else changed it in between (412). */
async function updateObject(client: CaldavClient, url: URL, changes: EventChanges) {
  for (let attempt = 1; ; attempt++) {
    const current = await client.get(url, 'read the event to update');
    const ics = changeEventObject(current.ics, changes);
    if (ics === null) throw new VendorError(SERVICE, 200, `${SERVICE} holds no event at ${url.pathname} (the resource is not a VEVENT)`);
    const response = await client.put(url, ics, { etag: current.etag });
    if (response.status === 412 && attempt < 2) continue;
    expectOk(SERVICE, response, 'update the event');
    return { href: url.pathname, etag: etagOf(response), ics };
  }
}

export const updateEvent = defineAction({
  auth: caldavAuth,
  key: 'update_event',
  name: 'Update an event',
  description: 'Changes the given fields of an event; the others, its alarms, attendees and recurrence stay as they are',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      event_id: EventId,
      summary: Type.Optional(fieldsSchema.summary),
      description: Type.Optional(fieldsSchema.description),
      location: Type.Optional(fieldsSchema.location),
      start: Type.Optional(fieldsSchema.start),
      end: Type.Optional(fieldsSchema.end),
      all_day: Type.Optional(fieldsSchema.all_day),
    },
    { additionalProperties: false },
  ),
  outputSample: EVENT_SAMPLE,
  async run(context) {
    const { calendar_id: calendarId, event_id: eventId, ...changes } = context.input;
    checkOrder(changes.start, changes.end);
    const client = clientFor(context);
    const url = client.eventUrl(client.calendarUrl(calendarId), eventId);
    return eventOutput(calendarId, await updateObject(client, url, changes));
  },
});

export const deleteEvent = defineAction({
  auth: caldavAuth,
  key: 'delete_event',
  name: 'Delete an event',
  description: 'Removes an event (the version just read: a change made meanwhile makes it fail instead of being lost)',
  input: Type.Object({ calendar_id: CalendarId, event_id: EventId }, { additionalProperties: false }),
  outputSample: { id: EVENT_SAMPLE.id, calendar_id: EVENT_SAMPLE.calendar_id, deleted: true },
  async run(context) {
    const { calendar_id: calendarId, event_id: eventId } = context.input;
    const client = clientFor(context);
    const url = client.eventUrl(client.calendarUrl(calendarId), eventId);
    const current = await client.get(url, 'find the event to delete');
    expectOk(SERVICE, await client.delete(url, current.etag), 'delete the event');
    return { id: url.pathname, calendar_id: calendarId, deleted: true };
  },
});
