import ICAL from 'ical.js';

/**
 * iCalendar (RFC 5545) through ical.js: reading a calendar object's event, writing a new
 * one, changing one in place (its other properties, alarms and exceptions kept), and the
 * busy intervals of an object with its recurrences expanded.
 */

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

/** An event as the app's outputs show it. */
export interface EventFields {
  uid: string | null;
  summary: string | null;
  description: string | null;
  location: string | null;
  /** ISO date-time in UTC, or `YYYY-MM-DD` for an all-day event. */
  start: string | null;
  end: string | null;
  all_day: boolean;
  recurring: boolean;
  /** STATUS (`CONFIRMED`, `TENTATIVE`, `CANCELLED`), null when absent. */
  status: string | null;
}

export interface EventChanges {
  summary?: string;
  description?: string;
  location?: string;
  start?: string;
  end?: string;
  all_day?: boolean;
}

const PRODID = '-//Switchboard//CalDAV flow app//EN';

/** The VCALENDAR of an object, its VTIMEZONEs registered so TZID times convert to UTC; null when it does not parse. */
function parseCalendar(ics: string): Component | null {
  try {
    const calendar = new ICAL.Component(ICAL.parse(ics) as unknown[]);
    for (const zone of calendar.getAllSubcomponents('vtimezone')) {
      const tzid = zone.getFirstPropertyValue('tzid');
      if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
    }
    return calendar;
  } catch {
    return null;
  }
}

/** The object's main VEVENT: the one without RECURRENCE-ID (the others are exceptions of its series). */
const masterOf = (calendar: Component): Component | null =>
  calendar.getAllSubcomponents('vevent').find((event) => !event.hasProperty('recurrence-id')) ?? calendar.getFirstSubcomponent('vevent');

const isoOf = (time: Time | null | undefined): string | null => {
  if (!time) return null;
  if (time.isDate) return time.toString().slice(0, 10);
  return time.toJSDate().toISOString();
};

const textProp = (event: Component, name: string): string | null => {
  const value = event.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : null;
};

/** The fields of an object's event; null when it holds no VEVENT (a task, a journal) or does not parse. */
export function readEvent(ics: string): EventFields | null {
  const calendar = parseCalendar(ics);
  const master = calendar && masterOf(calendar);
  if (!master) return null;
  const event = new ICAL.Event(master);
  const start = master.hasProperty('dtstart') ? event.startDate : null;
  return {
    uid: event.uid ?? null,
    summary: event.summary ?? null,
    description: event.description ?? null,
    location: event.location ?? null,
    start: isoOf(start),
    end: start ? isoOf(event.endDate) : null,
    all_day: start?.isDate ?? false,
    recurring: event.isRecurring(),
    status: textProp(master, 'status'),
  };
}

/** A step's date-time (ISO 8601 with an offset) as a UTC time, or its date for an all-day event. */
function timeOf(value: string, allDay: boolean): Time {
  const date = new Date(value);
  if (allDay) return ICAL.Time.fromDateString(date.toISOString().slice(0, 10));
  return ICAL.Time.fromJSDate(date, true);
}

const nowUtc = () => ICAL.Time.fromJSDate(new Date(), true);

function applyChanges(vevent: Component, changes: EventChanges, allDay: boolean): void {
  const event = new ICAL.Event(vevent);
  if (changes.summary !== undefined) event.summary = changes.summary;
  if (changes.description !== undefined) event.description = changes.description;
  if (changes.location !== undefined) event.location = changes.location;
  if (changes.start !== undefined) event.startDate = timeOf(changes.start, allDay);
  if (changes.end !== undefined) {
    // DTEND and DURATION may not both be present (RFC 5545 3.6.1).
    vevent.removeProperty('duration');
    event.endDate = timeOf(changes.end, allDay);
  }
}

/** A new calendar object holding one event. */
export function newEventObject(uid: string, fields: Required<Pick<EventChanges, 'summary' | 'start' | 'end'>> & EventChanges): string {
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.updatePropertyWithValue('prodid', PRODID);
  calendar.updatePropertyWithValue('version', '2.0');
  const vevent = new ICAL.Component('vevent');
  vevent.updatePropertyWithValue('uid', uid);
  vevent.updatePropertyWithValue('dtstamp', nowUtc());
  applyChanges(vevent, fields, fields.all_day ?? false);
  calendar.addSubcomponent(vevent);
  return calendar.toString();
}

/**
 * The object with its main event changed: the given fields replaced, SEQUENCE bumped
 * (RFC 5546: attendees' clients see a new revision), DTSTAMP and LAST-MODIFIED set.
 * Null when it holds no event.
 */
export function changeEventObject(ics: string, changes: EventChanges): string | null {
  const calendar = parseCalendar(ics);
  const master = calendar && masterOf(calendar);
  if (!calendar || !master) return null;
  const wasAllDay = master.hasProperty('dtstart') && new ICAL.Event(master).startDate.isDate;
  applyChanges(master, changes, changes.all_day ?? wasAllDay);
  const sequence = Number(master.getFirstPropertyValue('sequence') ?? 0);
  master.updatePropertyWithValue('sequence', Number.isFinite(sequence) ? sequence + 1 : 1);
  master.updatePropertyWithValue('dtstamp', nowUtc());
  master.updatePropertyWithValue('last-modified', nowUtc());
  return calendar.toString();
}

export interface Interval {
  start: Date;
  end: Date;
}

/** Expanding an unbounded series stops here, whatever the range: a guard against a rule that never reaches it. */
const MAX_OCCURRENCES = 5000;

/**
 * The intervals an object keeps busy within [from, to): each occurrence of its event
 * (a recurring series expanded, its exceptions applied), except cancelled and
 * transparent ones (RFC 5545 TRANSP: free time).
 */
export function busyIntervals(ics: string, range: Interval): Interval[] {
  const calendar = parseCalendar(ics);
  const master = calendar && masterOf(calendar);
  if (!master || !master.hasProperty('dtstart')) return [];
  const event = new ICAL.Event(master);
  const counts = (component: Component) =>
    String(component.getFirstPropertyValue('transp') ?? '').toUpperCase() !== 'TRANSPARENT' && String(component.getFirstPropertyValue('status') ?? '').toUpperCase() !== 'CANCELLED';
  const found: Interval[] = [];
  const add = (start: Time, end: Time, component: Component) => {
    if (!counts(component)) return;
    const interval = { start: start.toJSDate(), end: end.toJSDate() };
    if (interval.end > range.start && interval.start < range.end) found.push(interval);
  };
  if (!event.isRecurring()) {
    add(event.startDate, event.endDate, master);
    return found;
  }
  const iterator = event.iterator();
  for (let count = 0, next = iterator.next(); next && count < MAX_OCCURRENCES; count++, next = iterator.next()) {
    const details = event.getOccurrenceDetails(next);
    if (details.startDate.toJSDate() >= range.end) break;
    add(details.startDate, details.endDate, details.item.component);
  }
  return found;
}
