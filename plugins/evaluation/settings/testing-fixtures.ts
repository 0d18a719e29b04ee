import type { ResourceFixtures } from '../../../core/testing';
import { agentOverrideFixtures } from '../../agents/agent-overrides/testing';
import { evaluateOverrides } from './evaluate-overrides';

/** How the cross-tenant sweep (and tests) make the evaluate settings' resources: an agent with an override. */
export const fixtures: ResourceFixtures = agentOverrideFixtures(evaluateOverrides.definition);
