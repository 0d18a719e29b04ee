import type { ResourceFixtures } from '../../core/testing/cross-tenant-sweep';
import { fixtures as builder } from './builder/testing-fixtures';
import { fixtures as catalog } from './catalog/testing-fixtures';
import { fixtures as engine } from './engine/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the flows plugin's resources. */
export const fixtures: ResourceFixtures = { ...builder, ...catalog, ...engine };
