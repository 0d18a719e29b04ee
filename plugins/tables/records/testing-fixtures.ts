import type { ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';

// STUB: the helper that owns this folder adds a fixture for every resource kind its routes name.
export const fixtures: ResourceFixtures = {};
