import type { EntityManager } from '@mikro-orm/postgresql';
import { DataEnvelope, ValidationError, defineRoute, type AnyRoute } from '../../../core';
import { searchSlots } from '../booking/bookings';
import { slotJson } from '../booking/json';
import type { CalendarReader } from '../calendar/calendar-reader';
import { AvailabilityType } from '../entities';
import { SlotQuery, Slots } from '../schemas';
import { findSchedule, ScheduleParams } from './schedule-routes';
import { findType } from './type-routes';

const DAY = 86_400_000;
/** The longest window one request may ask about. */
const MAX_RANGE_DAYS = 62;

/** The schedule's one availability type, when `availability_type_uuid` is left out; 422 when it has none or several. */
async function onlyType(em: EntityManager, scheduleUuid: string): Promise<AvailabilityType> {
  const types = await em.find(AvailabilityType, { scheduleUuid }, { limit: 2 });
  if (types.length === 1) return types[0];
  throw ValidationError.field('availability_type_uuid', types.length === 0 ? 'is required: the schedule has no availability type yet' : 'is required: the schedule has several availability types');
}

/** `GET /schedules/{uuid}/slots`: the free slots of one availability type. */
export function slotRoutes(calendars: CalendarReader): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/schedules/:uuid/slots',
      summary: 'List free slots',
      description:
        `The slots an appointment of \`availability_type_uuid\` (a type of this schedule; it may be left out when the schedule has one) can be booked in, earliest first: inside the schedule’s hours, clear of its live appointments (and of its calendar’s busy times, with a calendar connection) by the type’s buffers. 502 when that calendar cannot be read. ` +
        `\`from\` defaults to now (never earlier), \`to\` to 7 days after \`from\`, at most ${MAX_RANGE_DAYS} days; \`limit\` defaults to 200. Times are UTC; \`local_start\` and \`utc_offset\` give the schedule’s wall clock.`,
      tags: ['appointments'],
      params: ScheduleParams,
      query: SlotQuery,
      // A schedule's calendar is asked for its busy times first: no transaction waits on it.
      transactional: false,
      errors: [404, 502],
      response: DataEnvelope(Slots),
      handler: async ({ params, query, em }) => {
        const schedule = await findSchedule(em, params.uuid);
        const type = query.availability_type_uuid ? await findType(em, query.availability_type_uuid, 'availability_type_uuid') : await onlyType(em, schedule.uuid);
        if (type.scheduleUuid !== schedule.uuid) throw ValidationError.field('availability_type_uuid', 'is a type of another schedule');
        const now = Date.now();
        const from = new Date(Math.max(now, query.from ? Date.parse(query.from) : now));
        const to = query.to ? new Date(query.to) : new Date(from.getTime() + 7 * DAY);
        if (to <= from) throw ValidationError.field('to', 'must be after `from` (and after now)');
        if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY) throw ValidationError.field('to', `is more than ${MAX_RANGE_DAYS} days after \`from\``);
        const extraBusy = await calendars.busy(schedule, from, to);
        const slots = await searchSlots(em, schedule, type, { from, to, limit: query.limit ?? 200, extraBusy });
        return {
          data: { schedule_uuid: schedule.uuid, availability_type_uuid: type.uuid, timezone: schedule.timezone, from: from.toISOString(), to: to.toISOString(), slots: slots.map(slotJson) },
        };
      },
    }),
  ];
}
