import { createServiceRef, type OrmService } from '../../core';
import { appointmentJson } from './booking/json';
import { Appointment, Schedule } from './entities';
import type { AppointmentJson } from './schemas';

/** What other plugins read of appointments (an appointment task's reminder): the current tenant's, through the ORM's current EntityManager. */
export interface AppointmentDirectory {
  /** The appointment with its schedule's name, or null when the tenant has none with that uuid. */
  get(appointmentUuid: string): Promise<(AppointmentJson & { schedule_name: string }) | null>;
}

export const appointmentDirectoryRef = createServiceRef<AppointmentDirectory>('appointments.directory');

export function createAppointmentDirectory(orm: OrmService): AppointmentDirectory {
  return {
    async get(appointmentUuid) {
      const appointment = await orm.em.findOne(Appointment, { uuid: appointmentUuid });
      if (!appointment) return null;
      const schedule = await orm.em.findOne(Schedule, { uuid: appointment.scheduleUuid }, { fields: ['name', 'timezone'] });
      return { ...appointmentJson(appointment, schedule?.timezone ?? 'UTC'), schedule_name: schedule?.name ?? '' };
    },
  };
}
