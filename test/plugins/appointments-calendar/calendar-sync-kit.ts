import path from 'node:path';
import { runInContext } from '../../../core/context/request-context';
import type { ApiClient, TestKernel } from '../../../core/testing';
import { APPOINTMENT_PLUGINS } from '../appointments/appointments-kit';

/** The appointments plugin, the flows plugin, one calendar app and the link, as `npm start` loads them. */
export const calendarSyncPlugins = (app: 'app-google-calendar' | 'app-caldav') => [
  ...APPOINTMENT_PLUGINS,
  ...['flows', app, 'appointments-calendar'].map((id) => path.resolve(__dirname, '../../../plugins', id)),
];

/** Retries of a failed calendar write come quickly in tests. */
export const SYNC_CONFIG = { 'appointments-calendar': { syncRetryInitialMs: 200 } };

export interface CalendarEventRow {
  appointment_uuid: string;
  connection_uuid: string;
  app_uid: string;
  calendar_id: string;
  event_id: string | null;
  state: string;
  starts_at: Date;
  ends_at: Date;
}

/** The link plugin's row for an appointment, read as the database holds it (no tenant context: every tenant's rows). */
export async function eventRow(kit: TestKernel, appointmentUuid: string): Promise<CalendarEventRow | undefined> {
  const rows = await kit.kernel.orm.em.fork().getConnection().execute<CalendarEventRow[]>('select * from appointment_calendar_events where appointment_uuid = ?', [appointmentUuid]);
  return rows[0];
}

/** Forgets an appointment's row, as when the consumer's transaction failed after the calendar app made the event. */
export async function forgetRow(kit: TestKernel, appointmentUuid: string): Promise<void> {
  await kit.kernel.orm.em.fork().getConnection().execute('delete from appointment_calendar_events where appointment_uuid = ?', [appointmentUuid]);
}

/**
 * Publishes `appointments.booked` for an appointment again, as the appointments plugin
 * announced it (a new message: the inbox does not dedupe it, as a redelivery of a
 * message whose handler failed is not deduped).
 */
export async function announceBookedAgain(kit: TestKernel, api: ApiClient, appointmentUuid: string, schedule: { uuid: string; name: string; timezone: string; calendar_connection_uuid: string }): Promise<void> {
  const appointment = (await api.get(`/api/v1/appointments/${appointmentUuid}`).expect(200)).body.data;
  const payload = { agent_uuid: null, appointment, schedule };
  await runInContext({ tenant: kit.tenant }, () => kit.kernel.orm.em.fork().transactional(() => kit.kernel.bus.publish('appointments.booked', payload)));
}

/** The `from` of each free slot, as Madrid wall-clock `HH:MM`. */
export async function slotClocks(api: ApiClient, schedule: string, type: string, from: string, to: string): Promise<string[]> {
  const res = await api.get(`/api/v1/schedules/${schedule}/slots?availability_type_uuid=${type}&from=${from}&to=${to}`);
  if (res.status !== 200) throw new Error(`slots: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.slots.map((slot: { local_start: string }) => slot.local_start.slice(11));
}
