import type { ResourceFixtures } from '../../core/testing';
import { fixtures as conversations } from './conversations/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the conversations plugin's resources. */
export const fixtures: ResourceFixtures = { ...conversations };
