import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { googleCalendarApp } from './calendar-app';
import { googleCalendarConfig } from './config';

export { googleCalendarApp } from './calendar-app';
export { googleCalendarConfig, type GoogleCalendarSettings } from './config';
export { eventIdFor } from './event-actions';
export type { CalendarEventJson } from './event-json';
export type { EventChange, SyncCursor } from './event-trigger';

/** Adds the Google Calendar app to the flow studio; its config holds the operator's OAuth client and Google's URLs. */
export default definePlugin({
  config: googleCalendarConfig,
  ...contributeFlowApp(googleCalendarApp),
});
