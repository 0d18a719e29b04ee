import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentAppointments, AgentView, ScheduleAssignment } from '../../agents';
import { Appointment, AvailabilityType, Schedule, type ScheduleQuestion } from '../entities';
import { LIVE_STATUSES } from '../entities/appointment.entity';
import { spanMinutes, type SuggestRules } from '../slots';
import type { BookingLimits } from '../booking/bookings';

const MINUTE = 60_000;

/** One of the agent's schedule assignments, with its schedule and the schedule's types (by name). */
export interface Assigned {
  rules: ScheduleAssignment;
  schedule: Schedule;
  types: AvailabilityType[];
}

/** What the tools of one turn work with: the assignments whose schedules exist, and the contact's upcoming appointments in them. */
export interface AgentBooking {
  randomAssignment: boolean;
  assigned: Assigned[];
  upcoming: Appointment[];
}

/** The agent's appointment configuration when it is enabled with at least one assignment; null otherwise. */
export function appointmentsOf(agent: AgentView): AgentAppointments | null {
  const config = (agent as { appointments?: AgentAppointments }).appointments;
  if (!config?.enabled || !Array.isArray(config.schedule_assignments) || config.schedule_assignments.length === 0) return null;
  return config;
}

/**
 * Reads the assignments' schedules and types, and the contact's live appointments that
 * have not started, in them. A schedule deleted since the agent was saved is skipped,
 * as is one with no availability type (nothing can be booked in it).
 */
export async function loadAgentBooking(em: EntityManager, config: AgentAppointments, contactUuid: string | null, now: Date): Promise<AgentBooking | null> {
  const uuids = config.schedule_assignments.map((assignment) => assignment.schedule_uuid);
  const [schedules, types, upcoming] = await Promise.all([
    em.find(Schedule, { uuid: { $in: uuids } }),
    em.find(AvailabilityType, { scheduleUuid: { $in: uuids } }, { orderBy: { name: 'asc', uuid: 'asc' } }),
    contactUuid
      ? em.find(Appointment, { contactUuid, scheduleUuid: { $in: uuids }, status: { $in: [...LIVE_STATUSES] }, startsAt: { $gt: now } }, { orderBy: { startsAt: 'asc' }, limit: 20 })
      : Promise.resolve([]),
  ]);
  const byUuid = new Map(schedules.map((schedule) => [schedule.uuid, schedule]));
  const assigned: Assigned[] = [];
  for (const rules of config.schedule_assignments) {
    const schedule = byUuid.get(rules.schedule_uuid);
    const ofSchedule = types.filter((type) => type.scheduleUuid === rules.schedule_uuid);
    if (schedule && ofSchedule.length > 0) assigned.push({ rules, schedule, types: ofSchedule });
  }
  if (assigned.length === 0) return null;
  return { randomAssignment: config.random_assignment, assigned, upcoming };
}

/** A span setting in minutes; an unreadable one (stored before a rule tightened) counts as none. */
export function minutesOf(span: string | undefined): number {
  try {
    return span ? spanMinutes(span) : 0;
  } catch {
    return 0;
  }
}

export const after = (now: Date, span: string | undefined) => new Date(now.getTime() + minutesOf(span) * MINUTE);

/** The limits an assignment puts on a booking made by the agent. */
export function bookingLimits(rules: ScheduleAssignment, now: Date): BookingLimits {
  const slot = rules.slot_rules;
  return { earliest: after(now, slot.book_slots_from), maxPerDay: slot.max_appointments_per_day, suggest: suggestRules(rules) };
}

export function suggestRules(rules: ScheduleAssignment): SuggestRules {
  const slot = rules.slot_rules;
  return {
    count: slot.conflict_resolution_enabled ? slot.alternative_slots_count : 0,
    priority: slot.suggestion_priority,
    preferSameDay: slot.prefer_same_day,
    preferSameTimeSlot: slot.prefer_same_time_slot,
    includeSameWeek: slot.include_same_week,
  };
}

/** The questions a booking through this assignment asks: its own, and the schedule's when it inherits them (its own win by name). */
export function questionsOf(assigned: Assigned): ScheduleQuestion[] {
  const own = assigned.rules.questions.custom_questions;
  const inherited = assigned.rules.questions.inherit_from_schedule ? assigned.schedule.questions.filter((question) => !own.some((mine) => mine.name === question.name)) : [];
  return [...own, ...inherited];
}

/** Whether a change to an appointment starting at `startsAt` needs a person's approval. */
export function needsApproval(rules: ScheduleAssignment, kind: 'create' | 'reschedule' | 'cancel', startsAt: Date, now: Date): boolean {
  const approval = rules.approval;
  if (!approval.require_approval) return false;
  const flag = kind === 'create' ? approval.approval_for_create : kind === 'reschedule' ? approval.approval_for_reschedule : approval.approval_for_cancel;
  // `approval_threshold`: a change this close to the appointment always waits for a person.
  return flag || startsAt.getTime() - now.getTime() < minutesOf(approval.approval_threshold) * MINUTE;
}

/** What the agent's approval settings say about telling people of a request. */
export const notifyOf = (rules: ScheduleAssignment) => ({ calendar_owner: rules.approval.notify_calendar_owner, admins: rules.approval.notify_admins });
