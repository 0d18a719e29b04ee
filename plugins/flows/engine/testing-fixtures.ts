import type { ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';

export const fixtures: ResourceFixtures = {};
