import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DataEnvelope,
  NotFoundError,
  ResourceId,
  Type,
  ValidationError,
  defineRoute,
  deleteRoute,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type BusService,
  type FieldErrors,
} from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import { book, cancel, lockSchedule, reschedule } from '../booking/bookings';
import { appointmentJson } from '../booking/json';
import { scheduleTransaction } from '../booking/schedule-queue';
import { withoutOwnTime, type CalendarReader } from '../calendar/calendar-reader';
import { Appointment, Schedule } from '../entities';
import { AppointmentCreate, AppointmentPatch, AppointmentQuery, Appointment as AppointmentSchema, CancelBody, RescheduleBody } from '../schemas';
import { APPOINTMENT_TOPICS, announce } from '../topics';
import { findSchedule } from './schedule-routes';
import { findType } from './type-routes';

const PATH = '/api/v1/appointments';
const TAGS = ['appointments'];
const Params = Type.Object({ uuid: ResourceId('appointments.appointment', 'The appointment') });

export interface AppointmentRouteDeps {
  bus: BusService;
  calendars: CalendarReader;
  agents: AgentDirectory;
  contacts: ContactDirectory;
}

export async function findAppointment(em: EntityManager, uuid: string): Promise<Appointment> {
  const row = await findByUuid(em, Appointment, uuid);
  if (!row) throw new NotFoundError('Appointment not found');
  return row;
}

/** The zone of each schedule the appointments are in: every appointment is shown with its schedule's. */
export async function zonesOf(em: EntityManager, rows: readonly Appointment[]): Promise<Map<string, string>> {
  const uuids = [...new Set(rows.map((row) => row.scheduleUuid))];
  if (uuids.length === 0) return new Map();
  const schedules = await em.find(Schedule, { uuid: { $in: uuids } }, { fields: ['timezone'] });
  return new Map(schedules.map((schedule) => [schedule.uuid, schedule.timezone]));
}

export async function oneAppointment(em: EntityManager, row: Appointment) {
  return appointmentJson(row, (await zonesOf(em, [row])).get(row.scheduleUuid) ?? 'UTC');
}

/** `contact_uuid` and `agent_uuid`, when sent, name the tenant's own. */
async function checkPeople(deps: AppointmentRouteDeps, body: { contact_uuid?: string | null; agent_uuid?: string | null }): Promise<void> {
  const errors: FieldErrors = {};
  if (body.contact_uuid && !(await deps.contacts.get([body.contact_uuid])).has(body.contact_uuid)) errors.contact_uuid = ['is not a contact of this tenant'];
  if (body.agent_uuid && !(await deps.agents.exists(body.agent_uuid))) errors.agent_uuid = ['is not an agent of this tenant'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

const conflicts =
  '409 when the time cannot be booked (taken, inside another appointment’s buffers, outside the hours): the body’s `data.alternatives` are the three nearest free slots. ' +
  'Two bookings of one time at once give one 201 and one 409: the database refuses overlapping live appointments of a schedule. With a calendar connection its busy times count as taken; 502 when it cannot be read.';

/** Appointments: book, list, read, change notes, cancel, reschedule, delete. */
export function appointmentRoutes(deps: AppointmentRouteDeps): AnyRoute[] {
  const { bus, calendars } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: PATH,
      summary: 'Book an appointment',
      description: `Books \`availability_type_uuid\` at \`starts_at\`, which must be a free slot’s \`from\` (\`GET /schedules/{uuid}/slots\`); \`ends_at\` follows from the type’s length. The appointment is \`confirmed\`. ${conflicts} 422 for a time in the past.`,
      tags: TAGS,
      body: AppointmentCreate,
      status: 201,
      // The schedule's calendar is read before the booking's transaction opens (none waits on a vendor),
      // and the transaction opens on the schedule's turn (schedule-queue.ts).
      transactional: false,
      errors: [409, 502],
      response: DataEnvelope(AppointmentSchema),
      handler: async ({ body, em }) => {
        const startsAt = new Date(body.starts_at);
        const found = await findType(em, body.availability_type_uuid, 'availability_type_uuid');
        const extraBusy = await calendars.forBooking(await findSchedule(em, found.scheduleUuid), startsAt);
        return scheduleTransaction(em, found.scheduleUuid, async (tx) => {
          const type = await findType(tx, body.availability_type_uuid, 'availability_type_uuid');
          await checkPeople(deps, body);
          const { appointment, schedule } = await book(tx, {
            type,
            startsAt,
            contactUuid: body.contact_uuid ?? null,
            agentUuid: body.agent_uuid ?? null,
            conversationUuid: null,
            answers: body.answers ?? {},
            notes: body.notes ?? '',
            status: 'confirmed',
            extraBusy,
          });
          await announce(bus, APPOINTMENT_TOPICS.booked, schedule, appointment);
          return { data: appointmentJson(appointment, schedule.timezone) };
        });
      },
    }),
    listRoute({
      path: PATH,
      summary: 'List appointments, earliest first',
      description: 'Filters combine: `schedule_uuid`, `contact_uuid`, `agent_uuid`, `status`, and `from`/`to` (appointments that end after `from` and start before `to`).',
      tags: TAGS,
      query: AppointmentQuery,
      item: AppointmentSchema,
      page: async ({ query, em }) => {
        const where = {
          ...(query.schedule_uuid ? { scheduleUuid: query.schedule_uuid } : {}),
          ...(query.contact_uuid ? { contactUuid: query.contact_uuid } : {}),
          ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
          ...(query.status ? { status: query.status } : {}),
          ...(query.from ? { endsAt: { $gt: new Date(query.from) } } : {}),
          ...(query.to ? { startsAt: { $lt: new Date(query.to) } } : {}),
        };
        const [rows, total] = await em.findAndCount(Appointment, where, { orderBy: { startsAt: 'asc', uuid: 'asc' }, ...pageWindow(query) });
        const zones = await zonesOf(em, rows);
        return [rows.map((row) => appointmentJson(row, zones.get(row.scheduleUuid) ?? 'UTC')), total] as const;
      },
    }),
    readRoute({
      path: `${PATH}/:uuid`,
      summary: 'Read an appointment',
      tags: TAGS,
      params: Params,
      resource: AppointmentSchema,
      read: async ({ params, em }) => oneAppointment(em, await findAppointment(em, params.uuid)),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${PATH}/:uuid`,
      summary: 'Update an appointment’s people, answers or notes',
      description: 'Members sent replace theirs. The time changes through `POST .../reschedule`, the status through `POST .../cancel` and approval requests.',
      tags: TAGS,
      params: Params,
      body: AppointmentPatch,
      errors: [404],
      response: DataEnvelope(AppointmentSchema),
      handler: async ({ params, body, em }) => {
        const row = await findAppointment(em, params.uuid);
        await checkPeople(deps, body);
        if (body.contact_uuid !== undefined) row.contactUuid = body.contact_uuid;
        if (body.agent_uuid !== undefined) row.agentUuid = body.agent_uuid;
        if (body.answers !== undefined) row.answers = body.answers;
        if (body.notes !== undefined) row.notes = body.notes;
        await em.flush();
        return { data: await oneAppointment(em, row) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PATH}/:uuid/cancel`,
      summary: 'Cancel an appointment',
      description: 'Its time is free again. 409 when it is already cancelled.',
      tags: TAGS,
      params: Params,
      body: CancelBody,
      // Its transaction opens on the schedule's turn (schedule-queue.ts), not before the handler.
      transactional: false,
      errors: [404, 409],
      response: DataEnvelope(AppointmentSchema),
      handler: async ({ params, body, em }) => {
        const { scheduleUuid } = await findAppointment(em, params.uuid);
        return scheduleTransaction(em, scheduleUuid, async (tx) => {
          // Locked before the appointment is read, so a cancellation committed meanwhile is seen (409).
          const schedule = await lockSchedule(tx, scheduleUuid);
          const row = await findAppointment(tx, params.uuid);
          cancel(row, body.reason ?? null);
          await tx.flush();
          await announce(bus, APPOINTMENT_TOPICS.cancelled, schedule, row);
          return { data: appointmentJson(row, schedule.timezone) };
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PATH}/:uuid/reschedule`,
      summary: 'Move an appointment to another time',
      description: `\`starts_at\` must be a free slot’s \`from\` for the appointment’s type (its own current time does not count as taken); the length stays. ${conflicts} 409 too for a cancelled appointment.`,
      tags: TAGS,
      params: Params,
      body: RescheduleBody,
      transactional: false,
      errors: [404, 409, 502],
      response: DataEnvelope(AppointmentSchema),
      handler: async ({ params, body, em }) => {
        const startsAt = new Date(body.starts_at);
        const current = await findAppointment(em, params.uuid);
        const extraBusy = withoutOwnTime(await calendars.forBooking(await findSchedule(em, current.scheduleUuid), startsAt), current);
        return scheduleTransaction(em, current.scheduleUuid, async (tx) => {
          const row = await findAppointment(tx, params.uuid);
          const schedule = await reschedule(tx, row, startsAt, { extraBusy });
          await announce(bus, APPOINTMENT_TOPICS.rescheduled, schedule, row);
          return { data: appointmentJson(row, schedule.timezone) };
        });
      },
    }),
    deleteRoute({
      path: `${PATH}/:uuid`,
      summary: 'Delete an appointment',
      description: 'Removes it and its requests without a trace (no `appointment_cancelled` event); `POST .../cancel` is what frees a time and tells the agent’s webhooks.',
      tags: TAGS,
      params: Params,
      message: 'Appointment deleted',
      remove: async ({ params, em }) => em.remove(await findAppointment(em, params.uuid)),
    }),
  ];
}
