import type { EntityManager } from '@mikro-orm/postgresql';
import { DataEnvelope, NotFoundError, ResourceId, Type, ValidationError, defineRoute, deleteRoute, findByUuid, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import { availabilityTypeJson } from '../booking/json';
import { AvailabilityType, Schedule } from '../entities';
import { AvailabilityTypeCreate, AvailabilityTypePatch, AvailabilityTypeQuery, AvailabilityType as TypeSchema } from '../schemas';

const PATH = '/api/v1/availability-types';
const TAGS = ['appointments'];
const Params = Type.Object({ uuid: ResourceId('appointments.availability_type', 'The availability type') });

export async function findType(em: EntityManager, uuid: string, path?: string): Promise<AvailabilityType> {
  const row = await findByUuid(em, AvailabilityType, uuid);
  if (row) return row;
  if (path) throw ValidationError.field(path, 'is not an availability type of this tenant');
  throw new NotFoundError('Availability type not found');
}

/** Availability types: CRUD; each belongs to one schedule. */
export function typeRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: PATH,
      summary: 'Create an availability type',
      description: 'What can be booked in a schedule: `duration_minutes` (5 to 1440) and the minutes kept free before and after it (`buffer_before`, `buffer_after`, default 0). 422 when `schedule_uuid` is not a schedule of this tenant.',
      tags: TAGS,
      body: AvailabilityTypeCreate,
      status: 201,
      response: DataEnvelope(TypeSchema),
      handler: async ({ body, em }) => {
        if (!(await findByUuid(em, Schedule, body.schedule_uuid))) throw ValidationError.field('schedule_uuid', 'is not a schedule of this tenant');
        const row = em.create(AvailabilityType, {
          name: body.name,
          scheduleUuid: body.schedule_uuid,
          durationMinutes: body.duration_minutes,
          bufferBefore: body.buffer_before ?? 0,
          bufferAfter: body.buffer_after ?? 0,
        });
        await em.flush();
        return { data: availabilityTypeJson(row) };
      },
    }),
    listRoute({
      path: PATH,
      summary: 'List availability types, by name',
      tags: TAGS,
      query: AvailabilityTypeQuery,
      item: TypeSchema,
      page: async ({ query, em }) => {
        const where = query.schedule_uuid ? { scheduleUuid: query.schedule_uuid } : {};
        const [rows, total] = await em.findAndCount(AvailabilityType, where, { orderBy: { name: 'asc', uuid: 'asc' }, ...pageWindow(query) });
        return [rows.map(availabilityTypeJson), total] as const;
      },
    }),
    readRoute({
      path: `${PATH}/:uuid`,
      summary: 'Read an availability type',
      tags: TAGS,
      params: Params,
      resource: TypeSchema,
      read: async ({ params, em }) => availabilityTypeJson(await findType(em, params.uuid)),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${PATH}/:uuid`,
      summary: 'Update an availability type',
      description: 'Members sent change. Appointments already booked keep their times; the new length and buffers apply to bookings from now on.',
      tags: TAGS,
      params: Params,
      body: AvailabilityTypePatch,
      errors: [404],
      response: DataEnvelope(TypeSchema),
      handler: async ({ params, body, em }) => {
        const row = await findType(em, params.uuid);
        if (body.name !== undefined) row.name = body.name;
        if (body.duration_minutes !== undefined) row.durationMinutes = body.duration_minutes;
        if (body.buffer_before !== undefined) row.bufferBefore = body.buffer_before;
        if (body.buffer_after !== undefined) row.bufferAfter = body.buffer_after;
        await em.flush();
        return { data: availabilityTypeJson(row) };
      },
    }),
    deleteRoute({
      path: `${PATH}/:uuid`,
      summary: 'Delete an availability type',
      description: 'Its appointments stay, with `availability_type_uuid: null`.',
      tags: TAGS,
      params: Params,
      message: 'Availability type deleted',
      remove: async ({ params, em }) => em.remove(await findType(em, params.uuid)),
    }),
  ];
}
