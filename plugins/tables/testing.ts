import type { ResourceFixtures } from '../../core/testing/cross-tenant-sweep';
import { fixtures as imports } from './imports/testing-fixtures';
import { fixtures as records } from './records/testing-fixtures';
import { fixtures as search } from './search/testing-fixtures';
import { fixtures as tables } from './tables/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the tables plugin's resources. */
export const fixtures: ResourceFixtures = { ...tables, ...records, ...imports, ...search };
