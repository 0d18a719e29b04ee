import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, type BusService } from '../../../core';
import { Appointment, AppointmentRequest, type RequestKind, type Schedule } from '../entities';
import type { Busy } from '../slots';
import { APPOINTMENT_TOPICS, announce } from '../topics';
import { cancel, lockSchedule, reschedule } from './bookings';

const MINUTE = 60_000;

export interface NewRequest {
  kind: RequestKind;
  appointment: Appointment;
  agentUuid: string | null;
  conversationUuid: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  reason: string | null;
  /** The agent's `expected_response_time`, in minutes. */
  expectedMinutes: number;
  /** The agent's `notify_calendar_owner` and `notify_admins`, passed on in the event. */
  notify: { calendar_owner: string; admins: string };
}

/** Records what the agent asked for and announces it (`appointment_request_created`). */
export async function createRequest(em: EntityManager, bus: BusService, schedule: Schedule, input: NewRequest): Promise<AppointmentRequest> {
  const request = em.create(AppointmentRequest, {
    kind: input.kind,
    status: 'pending',
    appointmentUuid: input.appointment.uuid,
    agentUuid: input.agentUuid,
    conversationUuid: input.conversationUuid,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    reason: input.reason,
    expectedResponseBy: new Date(Date.now() + input.expectedMinutes * MINUTE),
  });
  await em.flush();
  await announce(bus, APPOINTMENT_TOPICS.requestCreated, schedule, input.appointment, request, input.notify);
  return request;
}

/** The request, row-locked so two decisions of one request never both apply; 404 otherwise, 409 once decided. */
export async function lockPendingRequest(em: EntityManager, uuid: string): Promise<AppointmentRequest> {
  const request = await em.findOne(AppointmentRequest, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!request) throw new NotFoundError('Appointment request not found');
  if (request.status !== 'pending') throw new ConflictError(`The request is already ${request.status}`);
  return request;
}

async function appointmentOf(em: EntityManager, request: AppointmentRequest): Promise<Appointment> {
  const appointment = await em.findOne(Appointment, { uuid: request.appointmentUuid });
  if (!appointment) throw new NotFoundError('The request’s appointment no longer exists');
  return appointment;
}

/**
 * Applies what was asked: a booking is confirmed, a reschedule moves the appointment
 * (409 with alternatives when its time was taken meanwhile: the request stays
 * pending), a cancellation cancels it.
 */
export async function approve(em: EntityManager, bus: BusService, request: AppointmentRequest, note: string | null, extraBusy: Busy[] = []): Promise<Appointment> {
  const appointment = await appointmentOf(em, request);
  let topic: string;
  let schedule: Schedule;
  if (request.kind === 'create') {
    if (appointment.status !== 'pending_approval') throw new ConflictError(`The appointment is ${appointment.status}`);
    schedule = await lockSchedule(em, appointment.scheduleUuid);
    appointment.status = 'confirmed';
    topic = APPOINTMENT_TOPICS.booked;
  } else if (request.kind === 'reschedule') {
    schedule = await reschedule(em, appointment, request.startsAt!, { extraBusy });
    topic = APPOINTMENT_TOPICS.rescheduled;
  } else {
    schedule = await lockSchedule(em, appointment.scheduleUuid);
    cancel(appointment, request.reason);
    topic = APPOINTMENT_TOPICS.cancelled;
  }
  decide(request, 'approved', note);
  await em.flush();
  await announce(bus, topic, schedule, appointment);
  return appointment;
}

/** Turns the request down: a booking's held time is freed (its appointment cancelled); a reschedule or cancellation leaves the appointment as it is. */
export async function reject(em: EntityManager, bus: BusService, request: AppointmentRequest, note: string | null): Promise<Appointment> {
  const appointment = await appointmentOf(em, request);
  decide(request, 'rejected', note);
  if (request.kind === 'create' && appointment.status === 'pending_approval') {
    const schedule = await lockSchedule(em, appointment.scheduleUuid);
    cancel(appointment, note ? `request rejected: ${note}` : 'request rejected');
    await em.flush();
    await announce(bus, APPOINTMENT_TOPICS.cancelled, schedule, appointment);
    return appointment;
  }
  await em.flush();
  return appointment;
}

function decide(request: AppointmentRequest, status: 'approved' | 'rejected', note: string | null): void {
  request.status = status;
  request.decidedAt = new Date();
  request.decisionNote = note && note.trim() !== '' ? note.trim() : null;
}
