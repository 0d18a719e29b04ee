import { coreServices, type BusService, type OrmService } from '../../../core';
import type { RuntimeTool, RuntimeToolProvider } from '../../runtime';
import { calendarReaderRef, type CalendarReader } from '../calendar/calendar-reader';
import { appointmentsOf, loadAgentBooking } from './assignments';
import { bookTool } from './book-tool';
import { cancelTool, rescheduleTool } from './change-tools';
import { findSlotsTool } from './find-slots';

/**
 * The appointment tools an agent has in a turn (decisions-2.md §7): with
 * `appointments.enabled` and a schedule that can be booked, `find_slots` and
 * `book_appointment`; with upcoming appointments of the conversation's contact,
 * `reschedule_appointment` and (with `ai_can_cancel`) `cancel_appointment`. Read once per
 * turn with no transaction open; each call that writes opens its own.
 */
export const appointmentTools: RuntimeToolProvider = {
  id: 'appointments',
  deps: { orm: coreServices.orm, bus: coreServices.bus, calendars: calendarReaderRef },
  async tools(agent, turn, deps) {
    const { orm, bus, calendars } = deps as { orm: OrmService; bus: BusService; calendars: CalendarReader };
    const config = appointmentsOf(agent);
    if (!config) return [];
    const booking = await loadAgentBooking(orm.fork(), config, turn.contactUuid, turn.now);
    if (!booking) return [];
    const fork = () => orm.fork();
    return [findSlotsTool(fork, calendars, booking), bookTool(orm, bus, calendars, booking), rescheduleTool(orm, bus, calendars, booking), cancelTool(orm, bus, booking)].filter((tool): tool is RuntimeTool => tool !== null);
  },
};
