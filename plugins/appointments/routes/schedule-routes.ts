import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
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
  type FieldErrors,
} from '../../../core';
import { scheduleJson } from '../booking/json';
import { Appointment, Schedule } from '../entities';
import { LIVE_STATUSES } from '../entities/appointment.entity';
import { Schedule as ScheduleSchema, ScheduleCreate, SchedulePatch } from '../schemas';
import { checkExceptions, checkWeeklyHours, isTimeZone } from '../slots';
import type { AgentDirectory } from '../../agents';
import type { CalendarReader } from '../calendar/calendar-reader';

const PATH = '/api/v1/schedules';
const TAGS = ['appointments'];
export const ScheduleParams = Type.Object({ uuid: ResourceId('appointments.schedule', 'The schedule') });

/** The slot engine's paths (`weekly_hours.mon[1].end`) in the API's form (`weekly_hours.mon.1.end`). */
export const apiPath = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

export async function findSchedule(em: EntityManager, uuid: string): Promise<Schedule> {
  const row = await findByUuid(em, Schedule, uuid);
  if (!row) throw new NotFoundError('Schedule not found');
  return row;
}

/** Checks what the schema cannot say (a known zone, real hours and dates, the calendar connection) and applies the members sent. */
async function applyScheduleWrite(em: EntityManager, row: Schedule, body: Record<string, any>, calendars: CalendarReader): Promise<void> {
  const errors: FieldErrors = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  if (body.timezone !== undefined && !isTimeZone(body.timezone)) add('timezone', 'is not an IANA time zone this server knows');
  if (body.weekly_hours !== undefined) for (const problem of checkWeeklyHours(body.weekly_hours)) add(apiPath(problem.path), problem.message);
  if (body.exceptions !== undefined) for (const problem of checkExceptions(body.exceptions)) add(apiPath(problem.path), problem.message);
  if (body.questions !== undefined) {
    const names = new Set<string>();
    (body.questions as { name: string }[]).forEach((question, index) => {
      if (names.has(question.name)) add(`questions.${index}.name`, 'is the name of an earlier question');
      names.add(question.name);
    });
  }
  if (body.calendar_connection_uuid) {
    const problem = await calendars.check(em, body.calendar_connection_uuid);
    if (problem) add('calendar_connection_uuid', problem);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (body.name !== undefined) row.name = body.name;
  if (body.timezone !== undefined) row.timezone = body.timezone;
  if (body.weekly_hours !== undefined) row.weeklyHours = body.weekly_hours;
  if (body.exceptions !== undefined) row.exceptions = body.exceptions;
  if (body.questions !== undefined) row.questions = body.questions;
  if (body.calendar_connection_uuid !== undefined) row.calendarConnectionUuid = body.calendar_connection_uuid;
}

const hoursRules =
  '`weekly_hours` maps `mon`..`sun` to wall-clock intervals in `timezone` (`HH:MM`, `24:00` ends the day; a day left out is closed; intervals of a day may touch, not overlap). ' +
  '`exceptions` replace a local date’s hours (`hours`) or close it (`closed: true`). Daylight-saving changes are the zone’s: a local time that does not exist offers no slot, one that exists twice offers its slots twice. ' +
  'Every problem is a 422 at its path.';

/** Schedules: CRUD. */
export function scheduleRoutes(calendars: CalendarReader, agents: AgentDirectory): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: PATH,
      summary: 'Create a schedule',
      description: `When appointments can be booked. ${hoursRules}`,
      tags: TAGS,
      body: ScheduleCreate,
      status: 201,
      response: DataEnvelope(ScheduleSchema),
      handler: async ({ body, em }) => {
        const row = new Schedule();
        await applyScheduleWrite(em, row, body, calendars);
        em.persist(row);
        await em.flush();
        return { data: scheduleJson(row) };
      },
    }),
    listRoute({
      path: PATH,
      summary: 'List schedules, by name',
      tags: TAGS,
      query: PageQuery(),
      item: ScheduleSchema,
      page: async ({ query, em }) => {
        const [rows, total] = await em.findAndCount(Schedule, {}, { orderBy: { name: 'asc', uuid: 'asc' }, ...pageWindow(query) });
        return [rows.map(scheduleJson), total] as const;
      },
    }),
    readRoute({
      path: `${PATH}/:uuid`,
      summary: 'Read a schedule',
      tags: TAGS,
      params: ScheduleParams,
      resource: ScheduleSchema,
      read: async ({ params, em }) => scheduleJson(await findSchedule(em, params.uuid)),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${PATH}/:uuid`,
      summary: 'Update a schedule',
      description: `The members sent replace theirs whole (\`weekly_hours\` and \`exceptions\` too). Booked appointments keep their times. ${hoursRules}`,
      tags: TAGS,
      params: ScheduleParams,
      body: SchedulePatch,
      errors: [404],
      response: DataEnvelope(ScheduleSchema),
      handler: async ({ params, body, em }) => {
        const row = await findSchedule(em, params.uuid);
        await applyScheduleWrite(em, row, body, calendars);
        await em.flush();
        return { data: scheduleJson(row) };
      },
    }),
    deleteRoute({
      path: `${PATH}/:uuid`,
      summary: 'Delete a schedule',
      description: 'With its availability types and its past and cancelled appointments. 409 while it has a live appointment that has not ended (cancel those first), or while an agent’s `appointments.schedule_assignments` names it.',
      tags: TAGS,
      params: ScheduleParams,
      errors: [404, 409],
      message: 'Schedule deleted',
      remove: async ({ params, em }) => {
        const row = await findSchedule(em, params.uuid);
        const upcoming = await em.count(Appointment, { scheduleUuid: row.uuid, status: { $in: [...LIVE_STATUSES] }, endsAt: { $gt: new Date() } });
        if (upcoming > 0) throw new ConflictError(`The schedule has ${upcoming} upcoming appointment(s); cancel them first`);
        const assigning = await agents.assigningSchedule(row.uuid);
        if (assigning.length > 0) throw new ConflictError(`Agents book into this schedule (${assigning.map((agent) => `${agent.name} ${agent.uuid}`).join(', ')}); take it out of their appointments first`);
        em.remove(row);
      },
    }),
  ];
}
