import type { ResourceFixtures } from '../../core/testing';
import { fixtures as analyzers } from './analyzers/testing-fixtures';
import { fixtures as contacts } from './contacts/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the contacts plugin's resources. */
export const fixtures: ResourceFixtures = { ...contacts, ...analyzers };
