import type { Appointment, AppointmentRequest, AvailabilityType, Schedule } from '../entities';
import type { AppointmentJson, AppointmentRequestJson, AvailabilityTypeJson, ScheduleJson } from '../schemas';
import type { Slot } from '../slots';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function scheduleJson(row: Schedule): ScheduleJson {
  return {
    uuid: row.uuid,
    name: row.name,
    timezone: row.timezone,
    weekly_hours: row.weeklyHours,
    exceptions: row.exceptions,
    questions: row.questions,
    calendar_connection_uuid: row.calendarConnectionUuid,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function availabilityTypeJson(row: AvailabilityType): AvailabilityTypeJson {
  return {
    uuid: row.uuid,
    name: row.name,
    duration_minutes: row.durationMinutes,
    buffer_before: row.bufferBefore,
    buffer_after: row.bufferAfter,
    schedule_uuid: row.scheduleUuid,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** `timezone` is the schedule's: the caller has it (an appointment is always read with its schedule's zone). */
export function appointmentJson(row: Appointment, timezone: string): AppointmentJson {
  return {
    uuid: row.uuid,
    schedule_uuid: row.scheduleUuid,
    availability_type_uuid: row.availabilityTypeUuid,
    contact_uuid: row.contactUuid,
    agent_uuid: row.agentUuid,
    conversation_uuid: row.conversationUuid,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt.toISOString(),
    timezone,
    status: row.status,
    answers: row.answers,
    notes: row.notes,
    cancellation_reason: row.cancellationReason,
    cancelled_at: iso(row.cancelledAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function requestJson(row: AppointmentRequest): AppointmentRequestJson {
  return {
    uuid: row.uuid,
    kind: row.kind,
    status: row.status,
    appointment_uuid: row.appointmentUuid,
    agent_uuid: row.agentUuid,
    conversation_uuid: row.conversationUuid,
    starts_at: iso(row.startsAt),
    ends_at: iso(row.endsAt),
    reason: row.reason,
    expected_response_by: iso(row.expectedResponseBy),
    decided_at: iso(row.decidedAt),
    decision_note: row.decisionNote,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const slotJson = (slot: Slot) => ({ from: slot.start.toISOString(), to: slot.end.toISOString(), local_start: slot.localStart, utc_offset: slot.utcOffset });
