import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import type { RuntimeTool } from '../../runtime';
import { cancel, reschedule } from '../booking/bookings';
import { withoutOwnTime, type CalendarReader } from '../calendar/calendar-reader';
import { createRequest } from '../booking/requests';
import { scheduleTransaction } from '../booking/schedule-queue';
import { SlotUnavailableError } from '../booking/slot-unavailable';
import { Appointment } from '../entities';
import { localDateOf, localDateTimeOf } from '../slots';
import { APPOINTMENT_TOPICS, announce } from '../topics';
import { bookingLimits, minutesOf, needsApproval, notifyOf, type AgentBooking, type Assigned } from './assignments';
import { appointmentForModel, instantArg, localIso, slotForModel } from './tool-values';

const MINUTE = 60_000;

/** The contact's upcoming appointments, as the tools' descriptions list them. */
function listed(booking: AgentBooking): string {
  return booking.upcoming.map((appointment) => `${appointment.uuid} at ${localIso(appointment.startsAt, zoneOf(booking, appointment))}`).join('; ');
}

const assignedOf = (booking: AgentBooking, appointment: Appointment): Assigned => booking.assigned.find((assigned) => assigned.schedule.uuid === appointment.scheduleUuid)!;
const zoneOf = (booking: AgentBooking, appointment: Appointment) => assignedOf(booking, appointment).schedule.timezone;

/**
 * The appointment a call names, re-read in the call's transaction: one of the contact's
 * upcoming appointments in the agent's schedules, still live.
 */
async function named(tx: EntityManager, booking: AgentBooking, value: unknown): Promise<Appointment> {
  const offered = booking.upcoming.find((appointment) => appointment.uuid === value);
  if (!offered) throw new Error(`appointment_uuid must be one of the customer’s appointments: ${booking.upcoming.map((appointment) => appointment.uuid).join(', ')}`);
  const current = await tx.findOne(Appointment, { uuid: offered.uuid });
  if (!current || current.status === 'cancelled') throw new Error('that appointment is already cancelled');
  return current;
}

/** Whether moving from `from` to `to` is a minor change under the assignment's rescheduling rules. */
function isMinor(rules: Assigned['rules']['rescheduling'], from: Date, to: Date, zone: string): boolean {
  if (Math.abs(to.getTime() - from.getTime()) > rules.minor_change_hours * 60 * MINUTE) return false;
  if (rules.minor_change_same_day && localDateOf(from, zone) !== localDateOf(to, zone)) return false;
  if (rules.minor_change_same_slot && localDateTimeOf(from, zone).slice(11) !== localDateTimeOf(to, zone).slice(11)) return false;
  if (rules.minor_change_same_week && weekOf(from, zone) !== weekOf(to, zone)) return false;
  return true;
}

/** The local date of the Monday of `instant`'s week. */
function weekOf(instant: Date, zone: string): string {
  const date = new Date(`${localDateOf(instant, zone)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}

function tooLate(appointment: Appointment, notice: string | undefined, now: Date): boolean {
  return appointment.startsAt.getTime() - now.getTime() < minutesOf(notice) * MINUTE;
}

/**
 * `reschedule_appointment`: offered when the contact has upcoming appointments in the
 * agent's schedules and the policy is not `never`. `min_rescheduling_notice` is kept;
 * with policy `minor_changes_only` a change beyond the `minor_change_*` rules needs a
 * person (a request when approval is on, refused otherwise); any other policy
 * (`always_ask`, the default) lets the agent move it once the customer has agreed.
 */
export function rescheduleTool(orm: { fork(): EntityManager }, bus: BusService, calendars: CalendarReader, booking: AgentBooking): RuntimeTool | null {
  const movable = booking.upcoming.filter((appointment) => assignedOf(booking, appointment).rules.rescheduling.policy !== 'never');
  if (movable.length === 0) return null;
  return {
    definition: {
      name: 'reschedule_appointment',
      description: `Move one of the customer’s appointments (${listed(booking)}) to a free time from find_slots, after the customer agreed to it.`,
      parameters: {
        type: 'object',
        properties: {
          appointment_uuid: { type: 'string', enum: movable.map((appointment) => appointment.uuid) },
          starts_at: { type: 'string', description: 'The new start, ISO 8601 with offset, as find_slots gave it' },
        },
        required: ['appointment_uuid', 'starts_at'],
        additionalProperties: false,
      },
    },
    async run(args, turn) {
      const startsAt = instantArg(args.starts_at, 'starts_at');
      const offered = booking.upcoming.find((appointment) => appointment.uuid === args.appointment_uuid);
      const extraBusy = offered ? withoutOwnTime(await calendars.forBooking(assignedOf(booking, offered).schedule, startsAt), offered) : [];
      try {
        // On the schedule's turn in this process (schedule-queue.ts); an appointment not offered is refused inside.
        return await scheduleTransaction(orm, offered?.scheduleUuid, async (tx) => {
          const appointment = await named(tx, booking, args.appointment_uuid);
          const assigned = assignedOf(booking, appointment);
          const zone = assigned.schedule.timezone;
          const rules = assigned.rules.rescheduling;
          if (tooLate(appointment, rules.min_rescheduling_notice, turn.now)) return { rescheduled: false, reason: `It is too late to move it: at least ${rules.min_rescheduling_notice.replace('_', ' ')} notice is needed.` };
          const minorOnly = rules.policy === 'minor_changes_only' && !isMinor(rules, appointment.startsAt, startsAt, zone);
          if (minorOnly && !assigned.rules.approval.require_approval) return { rescheduled: false, reason: 'Only small changes can be made here; a person must move it.' };
          if (minorOnly || needsApproval(assigned.rules, 'reschedule', appointment.startsAt, turn.now)) {
            const request = await createRequest(tx, bus, assigned.schedule, {
              kind: 'reschedule',
              appointment,
              agentUuid: turn.agentUuid,
              conversationUuid: turn.conversationUuid,
              startsAt,
              endsAt: new Date(startsAt.getTime() + (appointment.endsAt.getTime() - appointment.startsAt.getTime())),
              reason: null,
              expectedMinutes: minutesOf(assigned.rules.approval.expected_response_time),
              notify: notifyOf(assigned.rules),
            });
            return { rescheduled: false, pending_approval: true, request_uuid: request.uuid, expected_response_time: assigned.rules.approval.expected_response_time };
          }
          await reschedule(tx, appointment, startsAt, { limits: bookingLimits(assigned.rules, turn.now), extraBusy });
          await announce(bus, APPOINTMENT_TOPICS.rescheduled, assigned.schedule, appointment);
          return { rescheduled: true, ...appointmentForModel(appointment, zone) };
        });
      } catch (error) {
        if (error instanceof SlotUnavailableError) return { rescheduled: false, reason: error.message, alternatives: error.alternatives.map(slotForModel) };
        throw error;
      }
    },
  };
}

/**
 * `cancel_appointment`: offered when an assignment allows it (`ai_can_cancel`) and the
 * contact has upcoming appointments there; keeps `min_cancellation_notice`, asks for a
 * reason when `require_cancellation_reason`, and waits for a person when approval says so.
 */
export function cancelTool(orm: { fork(): EntityManager }, bus: BusService, booking: AgentBooking): RuntimeTool | null {
  const cancellable = booking.upcoming.filter((appointment) => assignedOf(booking, appointment).rules.cancellation.ai_can_cancel);
  if (cancellable.length === 0) return null;
  const reasonRequired = cancellable.some((appointment) => assignedOf(booking, appointment).rules.cancellation.require_cancellation_reason);
  return {
    definition: {
      name: 'cancel_appointment',
      description: `Cancel one of the customer’s appointments (${listed(booking)}) when they ask to, after confirming which one.`,
      parameters: {
        type: 'object',
        properties: { appointment_uuid: { type: 'string', enum: cancellable.map((appointment) => appointment.uuid) }, reason: { type: 'string', description: 'Why, in the customer’s words' } },
        required: reasonRequired ? ['appointment_uuid', 'reason'] : ['appointment_uuid'],
        additionalProperties: false,
      },
    },
    async run(args, turn) {
      return orm.fork().transactional(async (tx) => {
        const appointment = await named(tx, booking, args.appointment_uuid);
        const assigned = assignedOf(booking, appointment);
        const rules = assigned.rules.cancellation;
        if (!rules.ai_can_cancel) throw new Error('this appointment cannot be cancelled by the agent');
        const reason = typeof args.reason === 'string' ? args.reason.trim().slice(0, 2000) : '';
        if (rules.require_cancellation_reason && reason === '') return { cancelled: false, reason_required: true, note: 'Ask the customer why first.' };
        if (tooLate(appointment, rules.min_cancellation_notice, turn.now)) return { cancelled: false, reason: `It is too late to cancel: at least ${rules.min_cancellation_notice.replace('_', ' ')} notice is needed.` };
        const zone = assigned.schedule.timezone;
        if (needsApproval(assigned.rules, 'cancel', appointment.startsAt, turn.now)) {
          const request = await createRequest(tx, bus, assigned.schedule, {
            kind: 'cancel',
            appointment,
            agentUuid: turn.agentUuid,
            conversationUuid: turn.conversationUuid,
            startsAt: null,
            endsAt: null,
            reason: reason || null,
            expectedMinutes: minutesOf(assigned.rules.approval.expected_response_time),
            notify: notifyOf(assigned.rules),
          });
          return { cancelled: false, pending_approval: true, request_uuid: request.uuid, expected_response_time: assigned.rules.approval.expected_response_time };
        }
        cancel(appointment, reason || null);
        await tx.flush();
        await announce(bus, APPOINTMENT_TOPICS.cancelled, assigned.schedule, appointment);
        return { cancelled: true, appointment_uuid: appointment.uuid, cancellation_fee_policy: rules.cancellation_fee_policy };
      });
    },
  };
}
