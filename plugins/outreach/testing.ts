import type { BodyFixtures, ResourceFixtures } from '../../core/testing';
import { fixtures as campaigns } from './campaigns/testing-fixtures';
import { fixtures as tasks } from './tasks/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the outreach plugin's resources. */
export const fixtures: ResourceFixtures = { ...campaigns, ...tasks };

/** Bodies the sweep cannot guess: a task names its contact by `contact_uuid` or `contact`, never both. */
export const bodies: BodyFixtures = {
  'POST /api/v1/tasks': (ids) => ({
    type: 'follow_up',
    agent_uuid: ids['agents.agent'],
    contact_uuid: ids['contacts.contact'],
    scheduled_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
  }),
};

/** Members the sweep cannot call with the owner's own id either (so its refusal of another tenant's proves nothing). */
export const unswept: Record<string, string> = {
  'PATCH /api/v1/tasks/:uuid campaign_uuid': 'cannot be changed: any id but the task’s own is a 422 at campaign_uuid',
  'PATCH /api/v1/tasks/:uuid rule_uuid': 'cannot be changed: any id but the task’s own is a 422 at rule_uuid',
};
