import type { EntityManager } from '@mikro-orm/postgresql';
import type { RuntimeTool } from '../../runtime';
import { searchSlots } from '../booking/bookings';
import type { CalendarReader } from '../calendar/calendar-reader';
import { addDays, localDayStart, suggestSlots, type Slot } from '../slots';
import { after, minutesOf, suggestRules, type AgentBooking, type Assigned } from './assignments';
import { dateArg, instantArg, slotForModel } from './tool-values';

const DAY = 86_400_000;
const MAX_DAYS = 31;
const OFFERED = 10;

/** A free slot, and where it would be booked. */
export interface Offer {
  slot: Slot;
  assigned: Assigned;
  typeUuid: string;
}

/** The type a call asks for in an assignment's schedule: the one named, else the schedule's first (by name); null when the named one is another schedule's. */
export function typeIn(assigned: Assigned, typeUuid: string | undefined) {
  if (!typeUuid) return assigned.types[0];
  return assigned.types.find((type) => type.uuid === typeUuid) ?? null;
}

/**
 * The free slots across the agent's schedules. One start offered by several schedules
 * goes to one of them: the first assignment in order, or a random one with
 * `random_assignment` (so bookings spread over the schedules).
 */
export async function offers(em: EntityManager, calendars: CalendarReader, booking: AgentBooking, options: { typeUuid?: string; fromDate: string | null; toDate: string | null; now: Date }): Promise<Offer[]> {
  const byStart = new Map<number, Offer[]>();
  for (const assigned of booking.assigned) {
    const type = typeIn(assigned, options.typeUuid);
    if (!type) continue;
    const zone = assigned.schedule.timezone;
    const slotRules = assigned.rules.slot_rules;
    const from = options.fromDate ? localDayStart(zone, options.fromDate) : options.now;
    const to = options.toDate ? localDayStart(zone, addDays(options.toDate, 1)) : new Date(from.getTime() + 7 * DAY);
    const until = new Date(Math.min(to.getTime(), from.getTime() + MAX_DAYS * DAY));
    // What is offered can also be booked: the later of the two earliest times.
    const earliest = new Date(Math.max(after(options.now, slotRules.offer_slots_from).getTime(), after(options.now, slotRules.book_slots_from).getTime()));
    const extraBusy = await calendars.busy(assigned.schedule, from, until);
    const slots = await searchSlots(em, assigned.schedule, type, { from, to: until, limit: 500, limits: { earliest, maxPerDay: slotRules.max_appointments_per_day }, extraBusy });
    for (const slot of slots) {
      const list = byStart.get(slot.start.getTime()) ?? [];
      list.push({ slot, assigned, typeUuid: type.uuid });
      byStart.set(slot.start.getTime(), list);
    }
  }
  return [...byStart.keys()]
    .sort((a, b) => a - b)
    .map((start) => {
      const choices = byStart.get(start)!;
      return booking.randomAssignment ? choices[Math.floor(Math.random() * choices.length)] : choices[0];
    });
}

export function findSlotsTool(em: () => EntityManager, calendars: CalendarReader, booking: AgentBooking): RuntimeTool {
  const types = booking.assigned.flatMap((assigned) => assigned.types.map((type) => ({ uuid: type.uuid, name: type.name, minutes: type.durationMinutes })));
  const typeNames = types.map((type) => `${type.name} (${type.minutes} min, ${type.uuid})`).join('; ');
  return {
    definition: {
      name: 'find_slots',
      description:
        `Find free appointment times. Kinds of appointment: ${typeNames}. Answers up to ${OFFERED} start times in the schedule’s local time with its UTC offset; ` +
        'offer a few to the customer, then book the one they choose with book_appointment, passing starts_at exactly as given here.',
      parameters: {
        type: 'object',
        properties: {
          availability_type_uuid: { type: 'string', enum: types.map((type) => type.uuid), description: 'The kind of appointment; default: the first' },
          from_date: { type: 'string', description: 'First local date to look at, YYYY-MM-DD; default: today' },
          to_date: { type: 'string', description: 'Last local date to look at, YYYY-MM-DD; default: a week from from_date' },
          preferred_time: { type: 'string', description: 'A time the customer asked for (ISO 8601 with offset): the nearest free times are given first' },
        },
        additionalProperties: false,
      },
    },
    async run(args, turn) {
      const typeUuid = typeof args.availability_type_uuid === 'string' ? args.availability_type_uuid : undefined;
      if (typeUuid && !types.some((type) => type.uuid === typeUuid)) throw new Error(`availability_type_uuid must be one of ${types.map((type) => type.uuid).join(', ')}`);
      const preferred = args.preferred_time ? instantArg(args.preferred_time, 'preferred_time') : null;
      const fromDate = dateArg(args.from_date, 'from_date');
      const found = await offers(em(), calendars, booking, { typeUuid, fromDate, toDate: dateArg(args.to_date, 'to_date'), now: turn.now });
      let chosen = found.slice(0, OFFERED);
      if (preferred) {
        const rules = { ...suggestRules(booking.assigned[0].rules), count: OFFERED };
        const zone = booking.assigned[0].schedule.timezone;
        const byStart = new Map(found.map((offer) => [offer.slot.start.getTime(), offer]));
        chosen = suggestSlots(found.map((offer) => offer.slot), { start: preferred }, rules, zone).map((slot) => byStart.get(slot.start.getTime())!);
      }
      return {
        slots: chosen.map((offer) => ({
          starts_at: slotForModel(offer.slot),
          minutes: Math.round((offer.slot.end.getTime() - offer.slot.start.getTime()) / 60_000),
          availability_type_uuid: offer.typeUuid,
          ...(booking.assigned.length > 1 ? { schedule_uuid: offer.assigned.schedule.uuid } : {}),
        })),
        ...(chosen.length === 0 ? { note: 'No free time in that range: try later dates.' } : {}),
        earliest_notice_minutes: Math.max(...booking.assigned.map((assigned) => minutesOf(assigned.rules.slot_rules.book_slots_from))),
      };
    },
  };
}
