import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError } from '../../../core';
import { Appointment, AvailabilityType, Schedule, type AppointmentStatus } from '../entities';
import { LIVE_STATUSES } from '../entities/appointment.entity';
import { freeSlots, localDateOf, suggestSlots, type Busy, type Slot, type SuggestRules } from '../slots';
import { SlotUnavailableError } from './slot-unavailable';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How far ahead alternatives are looked for when a time cannot be booked. */
const ALTERNATIVES_DAYS = 14;

/** What an agent's assignment adds to a booking's checks; the API books without them. */
export interface BookingLimits {
  /** Nothing may start before this (now + `book_slots_from`). */
  earliest?: Date;
  /** At most this many live appointments per local day of the schedule (`max_appointments_per_day`; 0: no limit). */
  maxPerDay?: number;
  /** How alternatives are picked when the time cannot be booked (the API: the 3 nearest). */
  suggest?: SuggestRules;
}

/** The API's alternatives (no agent's rules apply): the three nearest. */
const API_SUGGESTIONS: SuggestRules = { count: 3, priority: 'nearest', preferSameDay: false, preferSameTimeSlot: false, includeSameWeek: true };

export interface SlotRequest {
  from: Date;
  to: Date;
  limit?: number;
  /** The appointment being moved: its own time is not busy. */
  exclude?: string;
  limits?: BookingLimits;
  /** Busy times from outside (the schedule's calendar). */
  extraBusy?: Busy[];
}

export interface BookRequest {
  type: AvailabilityType;
  startsAt: Date;
  contactUuid: string | null;
  agentUuid: string | null;
  conversationUuid: string | null;
  answers: Record<string, unknown>;
  notes: string;
  status: Extract<AppointmentStatus, 'confirmed' | 'pending_approval'>;
  limits?: BookingLimits;
  extraBusy?: Busy[];
}

/** The schedule, row-locked until the transaction ends: bookings of one schedule run one at a time; 404 otherwise. */
export async function lockSchedule(em: EntityManager, scheduleUuid: string): Promise<Schedule> {
  const schedule = await em.findOne(Schedule, { uuid: scheduleUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!schedule) throw new NotFoundError('Schedule not found');
  return schedule;
}

/**
 * The free slots of `type` in its schedule between `from` and `to`: the schedule's
 * hours, less its live appointments (and `extraBusy`) with the type's buffers around
 * each slot, less the local days already holding `maxPerDay` appointments, from
 * `earliest` on.
 */
export async function searchSlots(em: EntityManager, schedule: Schedule, type: AvailabilityType, request: SlotRequest): Promise<Slot[]> {
  const from = new Date(Math.max(request.from.getTime(), request.limits?.earliest?.getTime() ?? -Infinity));
  if (from >= request.to) return [];
  // Buffers are at most a day, and a local day at most 25 hours: two days each side covers both.
  const live = await em.find(
    Appointment,
    {
      scheduleUuid: schedule.uuid,
      status: { $in: [...LIVE_STATUSES] },
      startsAt: { $lt: new Date(request.to.getTime() + 2 * DAY) },
      endsAt: { $gt: new Date(from.getTime() - 2 * DAY) },
      ...(request.exclude ? { uuid: { $ne: request.exclude } } : {}),
    },
    { fields: ['startsAt', 'endsAt'], orderBy: { startsAt: 'asc' } },
  );
  const maxPerDay = request.limits?.maxPerDay ?? 0;
  const fullDates = new Set<string>();
  if (maxPerDay > 0) {
    const perDate = new Map<string, number>();
    for (const row of live) {
      const date = localDateOf(row.startsAt, schedule.timezone);
      const count = (perDate.get(date) ?? 0) + 1;
      perDate.set(date, count);
      if (count >= maxPerDay) fullDates.add(date);
    }
  }
  return freeSlots({
    timezone: schedule.timezone,
    weeklyHours: schedule.weeklyHours,
    exceptions: schedule.exceptions,
    durationMinutes: type.durationMinutes,
    bufferBeforeMinutes: type.bufferBefore,
    bufferAfterMinutes: type.bufferAfter,
    from,
    to: request.to,
    busy: [...live.map((row) => ({ start: row.startsAt, end: row.endsAt })), ...(request.extraBusy ?? [])],
    fullDates,
    limit: request.limit,
  });
}

/**
 * Whether `startsAt` starts a free slot of the type; if not, the 409 with alternatives.
 * A booking's start must be a slot the schedule offers (`GET .../slots`): the hours,
 * the buffers and the daily limit are checked here, under the schedule's lock.
 */
async function ensureBookable(em: EntityManager, schedule: Schedule, type: AvailabilityType, startsAt: Date, request: Omit<SlotRequest, 'from' | 'to'>): Promise<void> {
  const end = new Date(startsAt.getTime() + type.durationMinutes * MINUTE);
  const earliest = request.limits?.earliest;
  if (earliest && startsAt < earliest) {
    throw new SlotUnavailableError(`The earliest time that can be booked is ${earliest.toISOString()}`, await alternatives(em, schedule, type, startsAt, request));
  }
  const [slot] = await searchSlots(em, schedule, type, { ...request, from: startsAt, to: end, limit: 1 });
  if (slot && slot.start.getTime() === startsAt.getTime()) return;
  const taken = await em.count(Appointment, {
    scheduleUuid: schedule.uuid,
    status: { $in: [...LIVE_STATUSES] },
    startsAt: { $lt: end },
    endsAt: { $gt: startsAt },
    ...(request.exclude ? { uuid: { $ne: request.exclude } } : {}),
  });
  const message = taken > 0 ? 'The time is taken by another appointment' : 'The time is not a free slot of the schedule (hours, buffers or the day’s limit)';
  throw new SlotUnavailableError(message, await alternatives(em, schedule, type, startsAt, request));
}

async function alternatives(em: EntityManager, schedule: Schedule, type: AvailabilityType, wanted: Date, request: Omit<SlotRequest, 'from' | 'to'>): Promise<Slot[]> {
  const rules = request.limits?.suggest ?? API_SUGGESTIONS;
  if (rules.count < 1) return [];
  const now = Date.now();
  const from = new Date(Math.max(now, wanted.getTime() - ALTERNATIVES_DAYS * DAY));
  const free = await searchSlots(em, schedule, type, { ...request, from, to: new Date(Math.max(now, wanted.getTime()) + ALTERNATIVES_DAYS * DAY), limit: 2000 });
  return suggestSlots(free, { start: wanted }, rules, schedule.timezone);
}

/** A live appointment overlapping another of its schedule: the exclusion constraint's SQLSTATE. */
const isOverlap = (error: unknown) => (error as { code?: string } | null)?.code === '23P01';

/**
 * Books `type` at `startsAt`: locks the schedule, checks the slot, writes the
 * appointment. 409 (SlotUnavailableError, with alternatives) when it cannot be booked;
 * 422 for a time in the past.
 */
export async function book(em: EntityManager, request: BookRequest): Promise<{ appointment: Appointment; schedule: Schedule }> {
  if (request.startsAt.getTime() <= Date.now()) throw ValidationError.field('starts_at', 'is in the past');
  const schedule = await lockSchedule(em, request.type.scheduleUuid);
  await ensureBookable(em, schedule, request.type, request.startsAt, { limits: request.limits, extraBusy: request.extraBusy });
  const appointment = em.create(Appointment, {
    scheduleUuid: schedule.uuid,
    availabilityTypeUuid: request.type.uuid,
    contactUuid: request.contactUuid,
    agentUuid: request.agentUuid,
    conversationUuid: request.conversationUuid,
    startsAt: request.startsAt,
    endsAt: new Date(request.startsAt.getTime() + request.type.durationMinutes * MINUTE),
    status: request.status,
    answers: request.answers,
    notes: request.notes,
  });
  await flushOrConflict(em);
  return { appointment, schedule };
}

/** Moves a live appointment to `startsAt` (same type, same length), with the checks of a booking. */
export async function reschedule(
  em: EntityManager,
  appointment: Appointment,
  startsAt: Date,
  options: { limits?: BookingLimits; extraBusy?: Busy[] } = {},
): Promise<Schedule> {
  if (!LIVE_STATUSES.includes(appointment.status)) throw notLive(appointment);
  if (startsAt.getTime() <= Date.now()) throw ValidationError.field('starts_at', 'is in the past');
  const schedule = await lockSchedule(em, appointment.scheduleUuid);
  const type = await typeOf(em, appointment);
  await ensureBookable(em, schedule, type, startsAt, { ...options, exclude: appointment.uuid });
  appointment.startsAt = startsAt;
  appointment.endsAt = new Date(startsAt.getTime() + type.durationMinutes * MINUTE);
  await flushOrConflict(em);
  return schedule;
}

/** Cancels a live appointment: its time is free again. 409 when it is already cancelled. */
export function cancel(appointment: Appointment, reason: string | null): void {
  if (!LIVE_STATUSES.includes(appointment.status)) throw notLive(appointment);
  appointment.status = 'cancelled';
  appointment.cancelledAt = new Date();
  appointment.cancellationReason = reason && reason.trim() !== '' ? reason.trim() : null;
}

/** An appointment's type; one whose type was deleted keeps its length with no buffers. */
async function typeOf(em: EntityManager, appointment: Appointment): Promise<AvailabilityType> {
  const found = appointment.availabilityTypeUuid ? await em.findOne(AvailabilityType, { uuid: appointment.availabilityTypeUuid }) : null;
  if (found) return found;
  return Object.assign(new AvailabilityType(), {
    uuid: appointment.availabilityTypeUuid ?? '',
    scheduleUuid: appointment.scheduleUuid,
    name: '',
    durationMinutes: Math.round((appointment.endsAt.getTime() - appointment.startsAt.getTime()) / MINUTE),
    bufferBefore: 0,
    bufferAfter: 0,
  });
}

async function flushOrConflict(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    // Only a writer that skipped the schedule's lock can get here; the database still refuses the overlap.
    if (isOverlap(error)) throw new SlotUnavailableError('The time is taken by another appointment', []);
    throw error;
  }
}

/** 409 for a change to an appointment that is not live. */
const notLive = (appointment: Appointment) => new ConflictError(`The appointment is ${appointment.status}`);
