import { defineFlowApp } from '../flows';
import { caldavAuth } from './auth';
import { calendarsOptions, eventsOptions } from './calendar-options';
import { createEvent, deleteEvent, updateEvent } from './event-actions';
import { eventCreatedOrChanged } from './event-trigger';
import { findEvents, findFreeBusy } from './find-actions';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2f855a" stroke-width="2"><rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18M8 3v4M16 3v4"/></svg>',
  ).toString('base64');

/**
 * CalDAV (RFC 4791): the calendars of an on-premises server such as Nextcloud or
 * Radicale, through a connection holding a user name, a password and the server's
 * address. No OAuth and no operator config: each connection names its own server.
 */
export const caldavApp = defineFlowApp({
  uid: 'caldav',
  name: 'CalDAV',
  description: 'Calendars on a CalDAV server (Nextcloud, Radicale, ...): create, update, delete and find events, free/busy time, and a trigger on new or changed events',
  icon: ICON,
  category: 'connect',
  version: '1.0.0',
  auth: caldavAuth,
  triggers: [eventCreatedOrChanged],
  actions: [createEvent, updateEvent, deleteEvent, findEvents, findFreeBusy],
  options: [calendarsOptions, eventsOptions],
});
