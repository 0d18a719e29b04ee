import { defineFlowApp } from '../flows';
import { googleCalendarAuth, googleCalendarDeps } from './auth';
import { calendarOptions } from './calendar-options';
import { eventActions } from './event-actions';
import { eventTriggers } from './event-trigger';
import { freeBusyActions } from './free-busy-action';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1a73e8" stroke-width="2"><rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18M8 3v4M16 3v4"/><path d="M8 14h3v3H8z" fill="#1a73e8"/></svg>',
  ).toString('base64');

/** The `google_calendar` app: events of a Google account's calendars, through Google Calendar API v3. */
export const googleCalendarApp = defineFlowApp({
  uid: 'google_calendar',
  name: 'Google Calendar',
  description: 'Create, update and delete events, find free and busy time, and react to events created or changed in a Google calendar',
  icon: ICON,
  category: 'connect',
  version: '1.0.0',
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  triggers: eventTriggers,
  actions: [...eventActions, ...freeBusyActions],
  options: calendarOptions,
});
