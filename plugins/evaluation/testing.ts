import type { ResourceFixtures } from '../../core/testing';
import { fixtures as evaluator } from './evaluator/testing-fixtures';
import { fixtures as settings } from './settings/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the evaluation plugin's resources. */
export const fixtures: ResourceFixtures = { ...settings, ...evaluator };
