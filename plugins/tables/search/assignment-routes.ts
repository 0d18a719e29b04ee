import { DeletedEnvelope, NotFoundError, PageQuery, defineRoute, listRoute, pageWindow, type AnyRoute } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { TableAssignment } from '../entities';
import { findTable } from '../tables/find-table';
import { assignTable, unassignTable } from './assignments';
import { AssignBody, AssignmentEnvelope, AssignmentParams, AssignmentSchema, TableParams, type AssignmentJson } from './search-schemas';

const tags = ['tables'];

/** Which agents use a table, and how. */
export const assignmentRoutes = (agents: AgentDirectory): AnyRoute[] => [assignTableRoute(agents), unassignTableRoute(agents), listAssignments(agents)];

const requireAgent = async (agents: AgentDirectory, agentUuid: string) => {
  if (!(await agents.exists(agentUuid))) throw new NotFoundError('Agent not found');
};

const assignTableRoute = (agents: AgentDirectory) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/:uuid/assign',
    summary: 'Assign a table to an agent',
    description:
      'Makes the table available to the agent: as a `knowledge_base` (searched by meaning) or for `lookup` (rows looked up exactly). ' +
      'An agent may have many tables and a table many agents. Assigning again changes the mode. The agent lists its tables in ' +
      '`settings.knowledge`. An unknown agent (or one of another workspace) answers 404.',
    tags,
    params: TableParams,
    body: AssignBody,
    errors: [404],
    response: AssignmentEnvelope,
    handler: async ({ params, body, em, tenant }) => {
      const table = await findTable(em, params.uuid);
      await requireAgent(agents, body.agent_uuid);
      const created = await assignTable(em, tenant.uuid, table.uuid, body.agent_uuid, body.mode);
      return {
        success: true,
        message: created ? 'Table assigned to the agent' : 'Assignment updated',
        data: { table_uuid: table.uuid, agent_uuid: body.agent_uuid, mode: body.mode },
      };
    },
  });

const unassignTableRoute = (agents: AgentDirectory) =>
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/data/:uuid/assign/:agent_uuid',
    summary: 'Unassign a table from an agent',
    description: 'The agent no longer uses the table. Idempotent: `data.deleted` is false when the table was not assigned to the agent.',
    tags,
    params: AssignmentParams,
    errors: [404],
    response: DeletedEnvelope,
    handler: async ({ params, em, tenant }) => {
      const table = await findTable(em, params.uuid);
      await requireAgent(agents, params.agent_uuid);
      return (await unassignTable(em, tenant.uuid, table.uuid, params.agent_uuid))
        ? { success: true, message: 'Table unassigned from the agent', data: { deleted: true } }
        : { success: true, message: 'Table was not assigned to the agent', data: { deleted: false } };
    },
  });

const listAssignments = (agents: AgentDirectory) =>
  listRoute({
    path: '/api/v1/data/:uuid/assignments',
    summary: 'List the agents a table is assigned to',
    description: 'Oldest assignment first.',
    tags,
    params: TableParams,
    query: PageQuery(),
    errors: [404],
    item: AssignmentSchema,
    page: async ({ params, query, em }) => {
      const table = await findTable(em, params.uuid);
      const [assignments, total] = await em.findAndCount(TableAssignment, { tableUuid: table.uuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(query) });
      const names = await agents.names(assignments.map((assignment) => assignment.agentUuid));
      const items: AssignmentJson[] = assignments.map((assignment) => ({
        table_uuid: assignment.tableUuid,
        agent_uuid: assignment.agentUuid,
        agent_name: names.get(assignment.agentUuid) ?? null,
        mode: assignment.mode,
        created_at: new Date(assignment.createdAt).toISOString(),
        updated_at: new Date(assignment.updatedAt).toISOString(),
      }));
      return [items, total];
    },
  });
