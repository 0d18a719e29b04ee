import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid } from '../../../core';
import { DataTable, TableAssignment, type AssignmentMode } from '../entities';
import type { AssignedTable } from '../knowledge-search';

/**
 * Assigns the table to the agent, or changes the mode of an assignment that exists, in
 * one statement (two requests at once cannot both insert). Returns whether it was new.
 */
export async function assignTable(em: EntityManager, tenantUuid: string, tableUuid: string, agentUuid: string, mode: AssignmentMode): Promise<boolean> {
  const [row]: Array<{ created: boolean }> = await em.getConnection().execute(
    'insert into data_table_assignments as a (uuid, tenant_uuid, created_at, updated_at, table_uuid, agent_uuid, mode) values (?, ?, now(), now(), ?, ?, ?) ' +
      'on conflict (table_uuid, agent_uuid) do update set mode = excluded.mode, updated_at = excluded.updated_at where a.tenant_uuid = excluded.tenant_uuid ' +
      'returning (xmax = 0) as created',
    [newUuid(), tenantUuid, tableUuid, agentUuid, mode],
    'all',
    em.getTransactionContext(),
  );
  return row?.created ?? false;
}

/** Whether there was an assignment to remove. */
export async function unassignTable(em: EntityManager, tenantUuid: string, tableUuid: string, agentUuid: string): Promise<boolean> {
  return (await em.nativeDelete(TableAssignment, { tenantUuid, tableUuid, agentUuid })) > 0;
}

export interface AgentTable {
  table: DataTable;
  mode: AssignmentMode;
}

/**
 * The tables assigned to each of these agents of the current tenant (optionally only
 * those of one mode), by name, in two queries however many agents; an agent without
 * tables maps to []. Through the ORM, so the tenant filter scopes it.
 */
export async function tablesOfAgents(em: EntityManager, agentUuids: readonly string[], mode?: AssignmentMode): Promise<Map<string, AgentTable[]>> {
  const result = new Map<string, AgentTable[]>(agentUuids.map((uuid) => [uuid, []]));
  if (agentUuids.length === 0) return result;
  const assignments = await em.find(TableAssignment, { agentUuid: { $in: [...new Set(agentUuids)] }, ...(mode ? { mode } : {}) });
  if (assignments.length === 0) return result;
  const tables = new Map((await em.find(DataTable, { uuid: { $in: [...new Set(assignments.map((a) => a.tableUuid))] } })).map((table) => [table.uuid, table]));
  for (const assignment of assignments) {
    const table = tables.get(assignment.tableUuid);
    if (table) result.get(assignment.agentUuid)?.push({ table, mode: assignment.mode });
  }
  for (const list of result.values()) list.sort((a, b) => a.table.name.localeCompare(b.table.name) || a.table.uuid.localeCompare(b.table.uuid));
  return result;
}

export const assignedTableJson = ({ table, mode }: AgentTable): AssignedTable => ({ table_uuid: table.uuid, name: table.name, mode });
