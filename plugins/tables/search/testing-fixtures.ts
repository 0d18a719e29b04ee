import type { ResourceFixtures } from '../../../core/testing';

/**
 * The search, sync and assignment routes name only tables (`tables.table`, made by the
 * tables fixtures) and agents (`agents.agent`, made by the agents plugin's): no kind of
 * their own to make.
 */
export const fixtures: ResourceFixtures = {};
