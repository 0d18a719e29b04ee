import type { BusService } from '../../core';
import type { AgentWebhookEvent } from '../agents';
import { appointmentJson, requestJson } from './booking/json';
import type { Appointment, AppointmentRequest, Schedule } from './entities';
import type { AppointmentJson, AppointmentRequestJson } from './schemas';

/** Bus topics of the appointments plugin: each commits with the change it announces. */
export const APPOINTMENT_TOPICS = {
  booked: 'appointments.booked',
  rescheduled: 'appointments.rescheduled',
  cancelled: 'appointments.cancelled',
  requestCreated: 'appointments.request_created',
} as const;

export interface AppointmentEvent {
  /** The agent the appointment is for (its webhooks hear of it); null: none. */
  agent_uuid: string | null;
  appointment: AppointmentJson;
  /** Its schedule: where a calendar link writes it (`calendar_connection_uuid`). */
  schedule: { uuid: string; name: string; timezone: string; calendar_connection_uuid: string | null };
  /** What was asked for, when the change waits for approval. */
  request?: AppointmentRequestJson;
  /** With a request: the agent's `approval.notify_calendar_owner` and `notify_admins` (`always`: the calendar link shows a pending booking in the calendar; the admins' for the webhook's subscriber to act on). */
  notify?: { calendar_owner: string; admins: string };
}

/** Publishes a change of `appointment` in the current transaction (it commits with the change). */
export function announce(bus: BusService, topic: string, schedule: Schedule, appointment: Appointment, request?: AppointmentRequest, notify?: AppointmentEvent['notify']): Promise<string> {
  const event: AppointmentEvent = {
    agent_uuid: appointment.agentUuid,
    appointment: appointmentJson(appointment, schedule.timezone),
    schedule: { uuid: schedule.uuid, name: schedule.name, timezone: schedule.timezone, calendar_connection_uuid: schedule.calendarConnectionUuid },
    ...(request ? { request: requestJson(request) } : {}),
    ...(notify ? { notify } : {}),
  };
  return bus.publish(topic, event, event.agent_uuid ? { headers: { 'agent-uuid': event.agent_uuid } } : {});
}

const source = (topic: string) => ({ topics: [topic], agentUuid: (payload: AppointmentEvent) => payload.agent_uuid });
const SHAPE = '`{agent_uuid, appointment, schedule: {uuid, name, timezone, calendar_connection_uuid}}` (the appointment as `GET /appointments/{uuid}` shows it)';

export const appointmentEvents: AgentWebhookEvent[] = [
  { name: 'appointment_booked', description: `An appointment of the agent was confirmed (booked, or its booking request approved): ${SHAPE}`, source: source(APPOINTMENT_TOPICS.booked) },
  { name: 'appointment_rescheduled', description: `An appointment of the agent moved to another time: ${SHAPE}`, source: source(APPOINTMENT_TOPICS.rescheduled) },
  { name: 'appointment_cancelled', description: `An appointment of the agent was cancelled, or its booking request rejected (its time is free again): ${SHAPE}, with \`cancellation_reason\``, source: source(APPOINTMENT_TOPICS.cancelled) },
  {
    name: 'appointment_request_created',
    description:
      'The agent asked for a booking, reschedule or cancellation that needs approval: `{agent_uuid, appointment, schedule, request, notify: {calendar_owner, admins}}` ' +
      '(`notify`: the agent’s `approval.notify_calendar_owner` and `notify_admins`); decide it with `POST /appointment-requests/{uuid}/approve|reject`',
    source: source(APPOINTMENT_TOPICS.requestCreated),
  },
];
