/**
 * The parts of Google Calendar API v3 resources the app reads, as Google documents them
 * (calendarList.list, events.list, events.insert/patch, freebusy.query). Members Google
 * leaves out of an answer are optional here too.
 */

/** An event's start or end: `dateTime` (RFC 3339) for a timed event, `date` (yyyy-mm-dd) for an all-day one. */
export interface GoogleEventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

export interface GoogleAttendee {
  email?: string;
  displayName?: string;
  responseStatus?: string;
  optional?: boolean;
}

export interface GoogleEvent {
  id: string;
  status?: string;
  htmlLink?: string;
  created?: string;
  updated?: string;
  summary?: string;
  description?: string;
  location?: string;
  start?: GoogleEventTime;
  end?: GoogleEventTime;
  attendees?: GoogleAttendee[];
  organizer?: { email?: string; displayName?: string };
  recurringEventId?: string;
  recurrence?: string[];
}

/** One page of events.list: `nextPageToken` while more pages follow, `nextSyncToken` on the last one. */
export interface GoogleEventsPage {
  items?: GoogleEvent[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

export interface GoogleCalendarListEntry {
  id: string;
  summary?: string;
  summaryOverride?: string;
  primary?: boolean;
  accessRole?: string;
  timeZone?: string;
}

export interface GoogleCalendarListPage {
  items?: GoogleCalendarListEntry[];
  nextPageToken?: string;
}

export interface GoogleTimePeriod {
  start: string;
  end: string;
}

/** freebusy.query's answer: per calendar asked, its busy periods, or `errors` when Google could not compute them. */
export interface GoogleFreeBusy {
  timeMin?: string;
  timeMax?: string;
  calendars?: Record<string, { busy?: GoogleTimePeriod[]; errors?: Array<{ domain?: string; reason?: string }> }>;
}
