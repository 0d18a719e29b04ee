import type { EntityManager } from '@mikro-orm/postgresql';
import { DataEnvelope, ResourceId, Type, defineRoute, findByUuid, listRoute, NotFoundError, pageWindow, readRoute, type AnyRoute, type BusService } from '../../../core';
import { requestJson } from '../booking/json';
import { withoutOwnTime, type CalendarReader } from '../calendar/calendar-reader';
import { Appointment, AppointmentRequest, Schedule } from '../entities';
import { approve, lockPendingRequest, reject } from '../booking/requests';
import { scheduleTransaction } from '../booking/schedule-queue';
import { Appointment as AppointmentSchema, AppointmentRequest as RequestSchema, DecisionBody, RequestQuery } from '../schemas';
import { oneAppointment } from './appointment-routes';

const PATH = '/api/v1/appointment-requests';
const TAGS = ['appointments'];
const Params = Type.Object({ uuid: ResourceId('appointments.appointment_request', 'The appointment request') });
const Decided = Type.Object({ request: RequestSchema, appointment: AppointmentSchema });

/** Approval requests: what agents asked for under `approval.require_approval`, listed and decided. */
export function requestRoutes(bus: BusService, calendars: CalendarReader): AnyRoute[] {
  const decision = (verb: 'approve' | 'reject', summary: string, description: string) =>
    defineRoute({
      method: 'POST',
      path: `${PATH}/:uuid/${verb}`,
      summary,
      description: `${description} \`note\` is kept as \`decision_note\`. 409 when the request was already decided.`,
      tags: TAGS,
      params: Params,
      body: DecisionBody,
      // An approved reschedule reads the schedule's calendar first, before the transaction opens;
      // the transaction opens on the schedule's turn (schedule-queue.ts).
      transactional: false,
      errors: [404, 409, 502],
      response: DataEnvelope(Decided),
      handler: async ({ params, body, em }) => {
        const extraBusy = verb === 'approve' ? await rescheduleBusy(em, params.uuid) : [];
        const decide = async (tx: EntityManager) => {
          const request = await lockPendingRequest(tx, params.uuid);
          const appointment = verb === 'approve' ? await approve(tx, bus, request, body.note ?? null, extraBusy) : await reject(tx, bus, request, body.note ?? null);
          return { data: { request: requestJson(request), appointment: await oneAppointment(tx, appointment) } };
        };
        return scheduleTransaction(em, await scheduleOfRequest(em, params.uuid), decide);
      },
    });
  /** The schedule of the request's appointment, if both exist (else the transaction answers the 404). */
  const scheduleOfRequest = async (em: EntityManager, uuid: string) => {
    const request = await findByUuid(em, AppointmentRequest, uuid);
    return request ? (await findByUuid(em, Appointment, request.appointmentUuid))?.scheduleUuid : undefined;
  };
  /** The calendar's busy times around a reschedule request's new time; none for other requests. */
  const rescheduleBusy = async (em: EntityManager, uuid: string) => {
    const request = await findByUuid(em, AppointmentRequest, uuid);
    if (request?.kind !== 'reschedule' || !request.startsAt) return [];
    const appointment = await findByUuid(em, Appointment, request.appointmentUuid);
    const schedule = appointment ? await findByUuid(em, Schedule, appointment.scheduleUuid) : null;
    return schedule && appointment ? withoutOwnTime(await calendars.forBooking(schedule, request.startsAt), appointment) : [];
  };
  return [
    listRoute({
      path: PATH,
      summary: 'List appointment requests, oldest first',
      description: 'Filters combine: `status` (`pending` for what waits for a decision), `agent_uuid`, `appointment_uuid`.',
      tags: TAGS,
      query: RequestQuery,
      item: RequestSchema,
      page: async ({ query, em }) => {
        const where = {
          ...(query.status ? { status: query.status } : {}),
          ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
          ...(query.appointment_uuid ? { appointmentUuid: query.appointment_uuid } : {}),
        };
        const [rows, total] = await em.findAndCount(AppointmentRequest, where, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(query) });
        return [rows.map(requestJson), total] as const;
      },
    }),
    readRoute({
      path: `${PATH}/:uuid`,
      summary: 'Read an appointment request',
      tags: TAGS,
      params: Params,
      resource: RequestSchema,
      read: async ({ params, em }) => {
        const row = await findByUuid(em, AppointmentRequest, params.uuid);
        if (!row) throw new NotFoundError('Appointment request not found');
        return requestJson(row);
      },
    }),
    decision('approve', 'Approve an appointment request', 'A booking is confirmed; a reschedule moves the appointment (409 with `data.alternatives` when its time was taken meanwhile, and the request stays pending); a cancellation cancels it.'),
    decision('reject', 'Reject an appointment request', 'A booking’s held time is freed (its appointment cancelled); a reschedule or cancellation leaves the appointment as it was.'),
  ];
}
