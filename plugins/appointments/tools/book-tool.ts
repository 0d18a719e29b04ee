import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import type { RuntimeTool } from '../../runtime';
import { book, searchSlots } from '../booking/bookings';
import type { CalendarReader } from '../calendar/calendar-reader';
import { createRequest } from '../booking/requests';
import { scheduleTransaction } from '../booking/schedule-queue';
import { SlotUnavailableError } from '../booking/slot-unavailable';
import { AvailabilityType } from '../entities';
import { APPOINTMENT_TOPICS, announce } from '../topics';
import { bookingLimits, minutesOf, needsApproval, notifyOf, questionsOf, type AgentBooking, type Assigned } from './assignments';
import { typeIn } from './find-slots';
import { appointmentForModel, instantArg, slotForModel } from './tool-values';

const JSON_TYPES: Record<string, string> = { number: 'number', integer: 'integer', boolean: 'boolean' };

/** The answers parameter: one property per question; required are those every assignment requires. */
function answersSchema(booking: AgentBooking) {
  const lists = booking.assigned.map(questionsOf);
  const properties: Record<string, unknown> = {};
  for (const question of lists.flat()) properties[question.name] ??= { type: JSON_TYPES[question.type] ?? 'string', description: question.description || question.name };
  const required = Object.keys(properties).filter((name) => lists.every((list) => list.some((question) => question.name === name && question.required)));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * Which assignment books `startsAt`: the schedule named, else the first (in order, or
 * shuffled with `random_assignment`) whose schedule has that start free; else the
 * first, whose booking then answers with alternatives.
 */
async function assignmentFor(em: EntityManager, calendars: CalendarReader, booking: AgentBooking, startsAt: Date, scheduleUuid: string | undefined, typeUuid: string | undefined, now: Date): Promise<Assigned | null> {
  if (scheduleUuid) return booking.assigned.find((assigned) => assigned.schedule.uuid === scheduleUuid) ?? null;
  if (booking.assigned.length === 1) return booking.assigned[0];
  const order = booking.randomAssignment ? shuffled(booking.assigned) : booking.assigned;
  for (const assigned of order) {
    const type = typeIn(assigned, typeUuid);
    if (!type) continue;
    const end = new Date(startsAt.getTime() + type.durationMinutes * 60_000);
    const extraBusy = await calendars.busy(assigned.schedule, new Date(startsAt.getTime() - 86_400_000), new Date(end.getTime() + 86_400_000));
    const [slot] = await searchSlots(em, assigned.schedule, type, { from: startsAt, to: end, limit: 1, limits: bookingLimits(assigned.rules, now), extraBusy });
    if (slot?.start.getTime() === startsAt.getTime()) return assigned;
  }
  return order.find((assigned) => typeIn(assigned, typeUuid)) ?? booking.assigned[0];
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let index = out.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [out[index], out[other]] = [out[other], out[index]];
  }
  return out;
}

export function bookTool(orm: { fork(): EntityManager }, bus: BusService, calendars: CalendarReader, booking: AgentBooking): RuntimeTool {
  const schedules = booking.assigned.map((assigned) => assigned.schedule.uuid);
  return {
    definition: {
      name: 'book_appointment',
      description:
        'Book an appointment at a time find_slots gave (starts_at exactly as given). Ask the customer the questions in `answers` first. ' +
        'If the time is no longer free the answer lists alternatives to offer. Some bookings wait for a person’s approval: then tell the customer it is requested, not confirmed.',
      parameters: {
        type: 'object',
        properties: {
          starts_at: { type: 'string', description: 'The slot’s start, ISO 8601 with offset, as find_slots gave it' },
          availability_type_uuid: { type: 'string', enum: booking.assigned.flatMap((assigned) => assigned.types.map((type) => type.uuid)) },
          ...(schedules.length > 1 ? { schedule_uuid: { type: 'string', enum: schedules, description: 'The schedule find_slots gave with the slot' } } : {}),
          answers: answersSchema(booking),
          notes: { type: 'string', description: 'Anything else the customer said the appointment is about' },
        },
        required: ['starts_at'],
        additionalProperties: false,
      },
    },
    async run(args, turn) {
      const startsAt = instantArg(args.starts_at, 'starts_at');
      const typeArg = typeof args.availability_type_uuid === 'string' ? args.availability_type_uuid : undefined;
      const assigned = await assignmentFor(orm.fork(), calendars, booking, startsAt, typeof args.schedule_uuid === 'string' ? args.schedule_uuid : undefined, typeArg, turn.now);
      if (!assigned) throw new Error(`schedule_uuid must be one of ${schedules.join(', ')}`);
      const type = typeIn(assigned, typeArg);
      if (!type) throw new Error('availability_type_uuid is not a type of that schedule');
      const answers = args.answers && typeof args.answers === 'object' && !Array.isArray(args.answers) ? (args.answers as Record<string, unknown>) : {};
      const missing = questionsOf(assigned).filter((question) => question.required && (answers[question.name] === undefined || answers[question.name] === ''));
      if (missing.length > 0) return { booked: false, missing_answers: missing.map((question) => ({ name: question.name, description: question.description })), note: 'Ask the customer these first.' };
      const notes = typeof args.notes === 'string' ? args.notes.slice(0, 10_000) : '';
      // `approval_for_notes`: what the agent writes down about a booking is checked by a person too.
      const approval = needsApproval(assigned.rules, 'create', startsAt, turn.now) || (assigned.rules.approval.require_approval && assigned.rules.approval.approval_for_notes && notes.trim() !== '');
      const zone = assigned.schedule.timezone;
      const extraBusy = await calendars.forBooking(assigned.schedule, startsAt);
      try {
        // On the schedule's turn in this process (schedule-queue.ts): a burst of bookings waits without a connection.
        return await scheduleTransaction(orm, assigned.schedule.uuid, async (tx) => {
          const current = await tx.findOne(AvailabilityType, { uuid: type.uuid });
          if (!current) throw new Error('that kind of appointment no longer exists');
          const { appointment } = await book(tx, {
            type: current,
            startsAt,
            contactUuid: turn.contactUuid,
            agentUuid: turn.agentUuid,
            conversationUuid: turn.conversationUuid,
            answers,
            notes,
            status: approval ? 'pending_approval' : 'confirmed',
            limits: bookingLimits(assigned.rules, turn.now),
            extraBusy,
          });
          if (approval) {
            const expected = assigned.rules.approval.expected_response_time;
            const request = await createRequest(tx, bus, assigned.schedule, {
              kind: 'create',
              appointment,
              agentUuid: turn.agentUuid,
              conversationUuid: turn.conversationUuid,
              startsAt: appointment.startsAt,
              endsAt: appointment.endsAt,
              reason: null,
              expectedMinutes: minutesOf(expected),
              notify: notifyOf(assigned.rules),
            });
            return { booked: false, pending_approval: true, request_uuid: request.uuid, ...appointmentForModel(appointment, zone), expected_response_time: expected };
          }
          await announce(bus, APPOINTMENT_TOPICS.booked, assigned.schedule, appointment);
          return { booked: true, ...appointmentForModel(appointment, zone) };
        });
      } catch (error) {
        if (error instanceof SlotUnavailableError) return { booked: false, reason: error.message, alternatives: error.alternatives.map(slotForModel) };
        throw error;
      }
    },
  };
}
