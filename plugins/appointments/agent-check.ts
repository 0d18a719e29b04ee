import type { AgentMemberCheck } from '../agents';
import { Schedule } from './entities';

/** `appointments.schedule_assignments[].schedule_uuid` names a schedule of the tenant (decisions-2.md §7): 422 at its path otherwise. */
export const scheduleAssignmentsCheck: AgentMemberCheck = {
  member: 'appointments',
  async check(em, value, problems) {
    const assignments = Array.isArray(value.schedule_assignments) ? (value.schedule_assignments as { schedule_uuid?: unknown }[]) : [];
    const named = assignments.map((assignment) => String(assignment.schedule_uuid ?? ''));
    if (named.length === 0) return;
    const found = new Set((await em.find(Schedule, { uuid: { $in: [...new Set(named)] } }, { fields: ['uuid'] })).map((schedule) => schedule.uuid));
    const seen = new Set<string>();
    named.forEach((uuid, index) => {
      const path = `appointments.schedule_assignments.${index}.schedule_uuid`;
      if (!found.has(uuid)) problems.add(path, 'is not a schedule of this tenant');
      else if (seen.has(uuid)) problems.add(path, 'is assigned twice');
      seen.add(uuid);
    });
  },
};
