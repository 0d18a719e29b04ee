import type { ResourceFixtures } from '../../core/testing/cross-tenant-sweep';
import { fixtures as campaigns } from './campaigns/testing-fixtures';
import { fixtures as tasks } from './tasks/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the outreach plugin's resources. */
export const fixtures: ResourceFixtures = { ...campaigns, ...tasks };
