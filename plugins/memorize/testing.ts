import type { ResourceFixtures } from '../../core/testing';
import { agentOverrideFixtures } from '../agents/agent-overrides/testing';
import { memorizeOverrides } from './memorize-overrides';
import { fixtures as memories } from './memory/testing-fixtures';

/** How the cross-tenant sweep makes the memorize plugin's resources: an agent with an override, a contact's memory. */
export const fixtures: ResourceFixtures = { ...agentOverrideFixtures(memorizeOverrides.definition), ...memories };
