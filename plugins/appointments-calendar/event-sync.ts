import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService, ConfigValues, Logger } from '../../core';
import { APPOINTMENT_TOPICS, type AppointmentEvent } from '../appointments';
import type { FlowActions } from '../flows';
import { AppointmentCalendarEvent, type CalendarEventState } from './appointment-calendar-event.entity';
import { calendarApp } from './calendar-apps';
import type { appointmentsCalendarConfig } from './config';
import { calendarEventOf } from './event-text';

/** What the calendar now holds for one appointment, written to `appointment_calendar_events` by the handler. */
interface Written {
  appointmentUuid: string;
  scheduleUuid: string;
  connectionUuid: string;
  appUid: string;
  calendarId: string;
  eventId: string | null;
  state: CalendarEventState;
  startsAt: Date;
  endsAt: Date;
  version: Date;
}

const TOPICS = [APPOINTMENT_TOPICS.booked, APPOINTMENT_TOPICS.rescheduled, APPOINTMENT_TOPICS.cancelled, APPOINTMENT_TOPICS.requestCreated];

/** A booking waiting for approval that the agent's `approval.notify_calendar_owner: always` asks to show the calendar's owner. */
const shownWhilePending = (topic: string, payload: AppointmentEvent) =>
  topic === APPOINTMENT_TOPICS.requestCreated && payload.request?.kind === 'create' && payload.notify?.calendar_owner === 'always' && payload.appointment.status === 'pending_approval';
/** The longest wait between two tries of one change. */
const MAX_RETRY_MS = 3_600_000;

function idOf(output: unknown): string {
  const id = (output as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || id === '') throw new Error('the calendar app answered create_event without the event’s id');
  return id;
}

/**
 * Makes the calendar hold what the message says of the appointment, calling the
 * calendar app with no transaction open (the consumer's `prepare`), and answers what to
 * record; null when there is nothing to do.
 *
 * - A change older than the one last written (a retry delivered late) is skipped.
 * - A confirmed appointment without an event gets one. Its idempotency key is the
 *   appointment's, so a create tried again after a failure (the event made, the row not
 *   recorded) answers the event the first try made instead of making a second; a
 *   reschedule or late booking that creates then moves it to the time it has now.
 * - An appointment with an event is updated in the calendar the event is in, or
 *   deleted from it once cancelled (an event deleted by hand meanwhile is no error).
 * - A cancellation before any event was made is recorded, so a late booking message makes none.
 * - A booking waiting for approval is shown when the agent's `notify_calendar_owner` is
 *   `always` (titled as pending); its approval updates that event, its rejection deletes it.
 */
async function writeToCalendar(actions: FlowActions, logger: Logger, em: EntityManager, topic: string, payload: AppointmentEvent): Promise<Written | null> {
  const { appointment, schedule } = payload;
  // Of requests, only a pending booking to be shown: a reschedule or cancellation request changes nothing until approved.
  if (topic === APPOINTMENT_TOPICS.requestCreated && !shownWhilePending(topic, payload)) return null;
  const version = new Date(appointment.updated_at);
  const row = await em.findOne(AppointmentCalendarEvent, { appointmentUuid: appointment.uuid });
  if (row && row.version >= version) return null;
  const event = calendarEventOf(payload);
  const cancelled = topic === APPOINTMENT_TOPICS.cancelled || appointment.status === 'cancelled';

  if (row?.eventId && row.state === 'synced') {
    const app = calendarApp(row.appUid);
    if (!app) throw new Error(`appointment ${appointment.uuid} has an event in "${row.appUid}", which this plugin no longer writes to`);
    const kept = { ...rowValues(row), version };
    if (cancelled) {
      try {
        await actions.run(app.uid, 'delete_event', row.connectionUuid, app.deleteInput(row.calendarId, row.eventId));
      } catch (error) {
        if (!app.isGone(error)) throw error;
      }
      return { ...kept, state: 'deleted' };
    }
    await actions.run(app.uid, 'update_event', row.connectionUuid, app.updateInput(row.calendarId, row.eventId, event));
    return { ...kept, startsAt: event.start, endsAt: event.end };
  }
  // Deleted already, or waiting for approval (in the calendar once confirmed, or now when the owner is to see it).
  if (row || (!cancelled && appointment.status !== 'confirmed' && !shownWhilePending(topic, payload))) return null;

  const connectionUuid = schedule.calendar_connection_uuid!;
  const connection = await actions.connection(connectionUuid);
  const app = connection && calendarApp(connection.app_uid);
  if (!app) {
    // Nothing a retry could change: the connection was deleted, or the schedule checked it before it changed app.
    logger.warn('appointment not written to its schedule’s calendar: the connection is gone or is not a calendar', { appointment_uuid: appointment.uuid, connection_uuid: connectionUuid });
    return null;
  }
  const calendarId = await app.calendarOf(actions, connectionUuid);
  const base = { appointmentUuid: appointment.uuid, scheduleUuid: schedule.uuid, connectionUuid, appUid: app.uid, calendarId, startsAt: event.start, endsAt: event.end, version };
  if (cancelled) return { ...base, eventId: null, state: 'deleted' };
  const created = await actions.run(app.uid, 'create_event', connectionUuid, app.createInput(calendarId, event), { idempotencyKey: `appointment:${appointment.uuid}` });
  const eventId = idOf(created);
  // Not a booking: an earlier try may have made the event at an earlier time, which the create answered as it is.
  if (topic !== APPOINTMENT_TOPICS.booked && topic !== APPOINTMENT_TOPICS.requestCreated) await actions.run(app.uid, 'update_event', connectionUuid, app.updateInput(calendarId, eventId, event));
  return { ...base, eventId, state: 'synced' };
}

const rowValues = (row: AppointmentCalendarEvent): Omit<Written, 'version'> => ({
  appointmentUuid: row.appointmentUuid,
  scheduleUuid: row.scheduleUuid,
  connectionUuid: row.connectionUuid,
  appUid: row.appUid,
  calendarId: row.calendarId,
  eventId: row.eventId,
  state: row.state,
  startsAt: row.startsAt,
  endsAt: row.endsAt,
});

/** Records what was written, unless a newer change of the appointment was recorded meanwhile. */
async function record(em: EntityManager, written: Written): Promise<void> {
  const row = await em.findOne(AppointmentCalendarEvent, { appointmentUuid: written.appointmentUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (row && row.version >= written.version) return;
  if (row) Object.assign(row, written);
  else em.create(AppointmentCalendarEvent, written);
  await em.flush();
}

/**
 * Writes each confirmed, moved or cancelled appointment of a schedule with a calendar
 * connection into that calendar. A failing calendar throws from `prepare`, so the bus
 * tries the change again later (`syncAttempts`, waits from `syncRetryInitialMs`,
 * tripling), then dead-letters it.
 */
export function syncAppointmentEvents(bus: BusService, actions: FlowActions, logger: Logger, settings: ConfigValues<typeof appointmentsCalendarConfig>): void {
  bus.consume<AppointmentEvent, Written | null>(
    {
      name: 'calendar-sync',
      topics: TOPICS,
      concurrency: 2,
      retry: { attempts: Math.max(1, settings.syncAttempts), backoff: { initialMs: settings.syncRetryInitialMs, factor: 3, maxMs: MAX_RETRY_MS } },
      prepareIf: (message) => Boolean(message.payload.schedule?.calendar_connection_uuid),
      prepare: (message, { em }) => writeToCalendar(actions, logger, em as EntityManager, message.topic, message.payload),
    },
    async (_message, { em, prepared }) => {
      if (prepared) await record(em as EntityManager, prepared);
    },
  );
}
