import { configRef, coreServices, definePlugin } from '../../core';
import { contributeScheduleCalendar } from '../appointments';
import { flowActionsRef } from '../flows';
import { AppointmentCalendarEvent } from './appointment-calendar-event.entity';
import { scheduleCalendar } from './calendar-provider';
import { appointmentsCalendarConfig } from './config';
import { syncAppointmentEvents } from './event-sync';
import { Migration0001AppointmentCalendarEvents } from './migrations/0001-appointment-calendar-events';

export { CALENDAR_APPS, type CalendarApp } from './calendar-apps';

/**
 * Calendar sync of schedules, a link between the appointments and flows plugins (neither
 * knows the other): a schedule's `calendar_connection_uuid` names a flow connection to a
 * calendar app (Google Calendar, CalDAV); its busy times block the schedule's slots
 * (the `scheduleCalendars` slot), and its appointments are written there as events
 * through the app's actions, from the appointments' bus events.
 */
const calendar = contributeScheduleCalendar(scheduleCalendar);

export default definePlugin({
  entities: [AppointmentCalendarEvent],
  migrations: [{ name: '0001-appointment-calendar-events', class: Migration0001AppointmentCalendarEvents }],
  config: appointmentsCalendarConfig,
  contributes: calendar.contributes,
  deps: { ...calendar.deps, actions: flowActionsRef, bus: coreServices.bus, logger: coreServices.logger, config: configRef(appointmentsCalendarConfig) },
  init(resolved) {
    const { bus, logger, config, ...forCalendar } = resolved;
    calendar.init(forCalendar);
    syncAppointmentEvents(bus, resolved.actions, logger, config.all());
  },
});
