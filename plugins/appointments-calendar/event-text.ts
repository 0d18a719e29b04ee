import type { AppointmentEvent, CalendarEventInput } from '../appointments';

/** An answer as the calendar's owner reads it: text as it is, anything else as JSON. */
const answerText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? String(value));

/**
 * The appointment as an event of its schedule's calendar: titled with the schedule's
 * name; described with the notes, then each booking answer on a line of its own, then
 * the appointment's id (for finding it in the API).
 */
export function calendarEventOf(event: AppointmentEvent): CalendarEventInput {
  const { appointment, schedule } = event;
  const notes = appointment.notes.trim();
  const answers = Object.entries(appointment.answers ?? {}).map(([question, value]) => `${question}: ${answerText(value)}`);
  const description = [notes, answers.join('\n'), `Appointment ${appointment.uuid}`].filter((part) => part !== '').join('\n\n');
  return {
    appointmentUuid: appointment.uuid,
    scheduleUuid: schedule.uuid,
    start: new Date(appointment.starts_at),
    end: new Date(appointment.ends_at),
    timezone: schedule.timezone,
    // A booking waiting for approval is in the calendar only when its owner is to see it: marked, so it is not taken for a confirmed one.
    summary: appointment.status === 'pending_approval' ? `${schedule.name} (pending approval)` : schedule.name,
    description,
  };
}
