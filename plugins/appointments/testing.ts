import { newUuid } from '../../core';
import type { BodyFixtures, ResourceFixtures } from '../../core/testing';

const EVERY_DAY = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => [day, [{ start: '00:00', end: '24:00' }]]));
/** An hour far enough ahead to be bookable, on the hour (slots of a 60-minute type step from midnight UTC). */
const ahead = () => new Date(Math.ceil((Date.now() + 3 * 86_400_000) / 3_600_000) * 3_600_000).toISOString();

/**
 * How the cross-tenant sweep (and plugin tests) make the appointments plugin's resources:
 * a schedule open all day in UTC with a 60-minute type, an appointment booked over the API;
 * a pending request written straight into the database (over the API only an agent's
 * turn makes one, which needs a model).
 */
export const fixtures: ResourceFixtures = {
  // A schedule with its one type: its slots can be listed without naming the type.
  'appointments.schedule': async ({ api }) => {
    const schedule = (await api.post('/api/v1/schedules').send({ name: 'sweep', timezone: 'UTC', weekly_hours: EVERY_DAY }).expect(201)).body.data.uuid;
    const type = (await api.post('/api/v1/availability-types').send({ name: 'sweep', duration_minutes: 60, schedule_uuid: schedule }).expect(201)).body.data.uuid;
    return { 'appointments.schedule': schedule, 'appointments.availability_type': type };
  },
  'appointments.availability_type': (owner, kit) => fixtures['appointments.schedule'](owner, kit),
  'appointments.appointment': async (owner, kit) => {
    const ids = await fixtures['appointments.availability_type'](owner, kit);
    const res = await owner.api.post('/api/v1/appointments').send({ availability_type_uuid: ids['appointments.availability_type'], starts_at: ahead() }).expect(201);
    return { ...ids, 'appointments.appointment': res.body.data.uuid };
  },
  'appointments.appointment_request': async (owner, kit) => {
    const ids = await fixtures['appointments.appointment'](owner, kit);
    const uuid = newUuid();
    await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute("insert into appointment_requests (uuid, tenant_uuid, created_at, updated_at, kind, status, appointment_uuid) values (?, ?, now(), now(), 'cancel', 'pending', ?)", [
        uuid,
        owner.tenant.uuid,
        ids['appointments.appointment'],
      ]);
    return { ...ids, 'appointments.appointment_request': uuid };
  },
};

/** Bodies the sweep cannot guess: a bookable time. */
export const bodies: BodyFixtures = {
  'POST /api/v1/appointments': (ids) => ({ availability_type_uuid: ids['appointments.availability_type'], starts_at: ahead() }),
  'POST /api/v1/appointments/:uuid/reschedule': () => ({ starts_at: ahead() }),
};

/** Members no body can sweep here, with why. */
export const unswept: Record<string, string> = {
  'POST /api/v1/schedules calendar_connection_uuid': 'only a calendar app’s connection is accepted and the sweep’s flows.connection is not one; test/plugins/appointments-calendar refuses another tenant’s',
  'PATCH /api/v1/schedules/:uuid calendar_connection_uuid': 'only a calendar app’s connection is accepted and the sweep’s flows.connection is not one; test/plugins/appointments-calendar refuses another tenant’s',
};
