import type { Appointment } from '../entities';
import { localDateTimeOf, offsetAt, type Slot } from '../slots';

/** An instant as the model reads it: the schedule's wall clock with its offset (`2026-12-01T09:00:00+01:00`), exact and local at once. */
export function localIso(instant: Date, zone: string): string {
  return `${localDateTimeOf(instant, zone)}:00${offsetAt(zone, instant)}`;
}

export const slotForModel = (slot: Slot) => `${slot.localStart}:00${slot.utcOffset}`;

export function appointmentForModel(appointment: Appointment, zone: string) {
  return {
    appointment_uuid: appointment.uuid,
    starts_at: localIso(appointment.startsAt, zone),
    ends_at: localIso(appointment.endsAt, zone),
    status: appointment.status,
  };
}

/** A date-time argument of the model: ISO 8601 with a zone (`Z` or an offset); anything else is refused, never guessed. */
export function instantArg(value: unknown, name: string): Date {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    throw new Error(`${name} must be an ISO 8601 date-time with its offset, as find_slots gives it (e.g. 2026-12-01T09:00:00+01:00)`);
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new Error(`${name} is not a real date-time`);
  return new Date(time);
}

export function dateArg(value: unknown, name: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new Error(`${name} must be a date YYYY-MM-DD`);
  return value;
}
