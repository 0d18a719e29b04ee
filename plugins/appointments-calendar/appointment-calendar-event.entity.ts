import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../core';

export type CalendarEventState = 'synced' | 'deleted';

/**
 * Where an appointment sits in its schedule's calendar: the connection, the calendar and
 * the event the calendar app gave it (Google's event id, CalDAV's href). A redelivered
 * booking finds it and makes no second event; a reschedule or cancellation changes that
 * event, in that calendar, even after the schedule moved to another one.
 *
 * `version` is the appointment's `updated_at` last written to the calendar: a change
 * delivered late (after a retry) that is older than it is not written over a newer one.
 * Appointments and connections are other plugins' tables: no foreign keys.
 */
@Entity({ tableName: 'appointment_calendar_events' })
@Unique({ name: 'appointment_calendar_events_appointment_uuid_unique', properties: ['appointmentUuid'] })
export class AppointmentCalendarEvent extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  appointmentUuid!: string;

  @Property({ type: 'uuid' })
  scheduleUuid!: string;

  @Property({ type: 'uuid' })
  connectionUuid!: string;

  @Property({ type: 'text' })
  appUid!: string;

  @Property({ type: 'text' })
  calendarId!: string;

  /** Null when the appointment was cancelled before any event was made for it. */
  @Property({ type: 'text', nullable: true })
  eventId: string | null = null;

  @Property({ type: 'text' })
  state!: CalendarEventState;

  /** The event's time as last written. */
  @Property({ type: 'datetime' })
  startsAt!: Date;

  @Property({ type: 'datetime' })
  endsAt!: Date;

  @Property({ type: 'datetime' })
  version!: Date;
}
