import { BootError, ContributedDeps, coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef, agentMemberChecks, agentWebhookEvents } from '../agents';
import { contactDirectoryRef } from '../contacts';
import { contributeRuntimeTools } from '../runtime';
import { scheduleAssignmentsCheck } from './agent-check';
import { appointmentDirectoryRef, createAppointmentDirectory } from './appointment-directory';
import * as entities from './entities';
import { Migration0001Appointments } from './migrations/0001-appointments';
import { appointmentRoutes } from './routes/appointment-routes';
import { scheduleCalendarDepsRef, scheduleCalendars, type ScheduleCalendar } from './calendar/calendar-point';
import { CalendarReader, calendarReaderRef } from './calendar/calendar-reader';
import { requestRoutes } from './routes/request-routes';
import { scheduleRoutes } from './routes/schedule-routes';
import { slotRoutes } from './routes/slot-routes';
import { typeRoutes } from './routes/type-routes';
import { appointmentTools } from './tools/appointment-tools';
import { appointmentEvents } from './topics';

// The public API of the appointments plugin: what other plugins may import.
export { APPOINTMENT_TOPICS, type AppointmentEvent } from './topics';
export type { AppointmentJson, AppointmentRequestJson, ScheduleJson, AvailabilityTypeJson } from './schemas';
export { scheduleCalendars, contributeScheduleCalendar, type ScheduleCalendar, type CalendarEventInput } from './calendar/calendar-point';
export type { Busy } from './slots';
export { appointmentDirectoryRef, type AppointmentDirectory } from './appointment-directory';

/**
 * Schedules, availability types, free slots, appointments and approval requests
 * (decisions-2.md §7), and the agent's appointment configuration acting: its schedules
 * are checked on write, and the runtime offers the agent the booking tools.
 */
const tools = contributeRuntimeTools(appointmentTools);

export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-appointments', class: Migration0001Appointments }],
  provides: [scheduleCalendars],
  services: [
    createServiceFactory({ service: appointmentDirectoryRef, deps: { orm: coreServices.orm }, factory: ({ orm }) => createAppointmentDirectory(orm) }),
    createServiceFactory({ service: scheduleCalendarDepsRef, deps: {}, factory: () => new ContributedDeps<ScheduleCalendar>(() => 'the schedule calendar provider', 'contributeScheduleCalendar') }),
    createServiceFactory({
      service: calendarReaderRef,
      deps: { calendarDeps: scheduleCalendarDepsRef },
      factory: ({ calendarDeps }, { extensions }) => {
        const [calendar] = extensions.items(scheduleCalendars);
        // Its deps are read when used: the plugin filling the slot hands them over in its init, after this plugin's.
        return new CalendarReader(calendar ? { calendar, deps: () => (calendar.deps ? calendarDeps.of(calendar) : {}) } : null);
      },
    }),
  ],
  contributes: [...tools.contributes, agentMemberChecks.add(scheduleAssignmentsCheck), ...appointmentEvents.map((event) => agentWebhookEvents.add(event))],
  deps: {
    ...tools.deps,
    http: coreServices.http,
    bus: coreServices.bus,
    lifecycle: coreServices.lifecycle,
    agents: agentDirectoryRef,
    contacts: contactDirectoryRef,
    calendars: calendarReaderRef,
    calendarDeps: scheduleCalendarDepsRef,
  },
  init(resolved, { extensions }) {
    tools.init(resolved);
    const { http, bus, lifecycle, agents, contacts, calendars, calendarDeps } = resolved;
    lifecycle.onStart(() => {
      const unprovided = calendarDeps.missing(extensions.items(scheduleCalendars));
      if (unprovided.length > 0) throw new BootError(`${unprovided.join(', ')}: deps named but never provided (contribute with contributeScheduleCalendar(...))`);
    });
    const routes = [...scheduleRoutes(calendars, agents), ...typeRoutes(), ...slotRoutes(calendars), ...appointmentRoutes({ bus, agents, contacts, calendars }), ...requestRoutes(bus, calendars)];
    for (const route of routes) http.route(route);
  },
});
