import type { BodyFixtures, ResourceFixtures } from '../../core/testing';
import { fixtures as builder } from './builder/testing-fixtures';
import { fixtures as catalog } from './catalog/testing-fixtures';
import { fixtures as engine } from './engine/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the flows plugin's resources. */
export const fixtures: ResourceFixtures = { ...builder, ...catalog, ...engine };

/**
 * Members that only apply to some bodies (an app that takes a connection, an action on an
 * agent, a branching parent), each refused for another tenant's id by its own tests.
 */
export const unswept: Record<string, string> = {
  'POST /api/v1/flow/apps/:uid/options connection_uuid':
    'the connect app the fixtures make a connection of has no option lists; test/plugins/flows/catalog/options.test.ts refuses another tenant’s connection',
  'POST /api/v1/flow/:uuid/steps parent_step_uuid': 'needs a branching parent; it must be a step of this flow, and test/plugins/flows/builder/placement-references.test.ts refuses a step of another flow',
  'POST /api/v1/flow/:uuid/steps app_connection_uuid': 'needs a connect app’s action; test/plugins/flows/builder/connections.test.ts refuses another tenant’s connection',
  'PATCH /api/v1/flow/:uuid/steps/:step app_connection_uuid': 'needs a connect app’s step; test/plugins/flows/builder/connections.test.ts refuses another tenant’s connection',
  'PATCH /api/v1/flow/:uuid/steps/:step agent_uuid': 'needs a step acting on an agent; test/plugins/flows/builder/step-rules.test.ts refuses another tenant’s agent',
};

/** A step's `agent_uuid` applies only to an app that acts on an agent: the agents app's action, when that app is installed. */
export const bodies: BodyFixtures = {
  'POST /api/v1/flow/:uuid/steps': (_, member) => (member === 'agent_uuid' ? { app_uid: 'agents', action_key: 'update_agent', config: { name: 'Renamed' } } : undefined),
};
