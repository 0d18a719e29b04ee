import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, preparedStatement, type Egress, type Logger, type OrmService, type TenantService } from '../../../core';
import type { AssignmentMode } from '../entities';
import type { AssignedTable, KnowledgeHit, KnowledgeSearch } from '../knowledge-search';
import { findTable } from '../tables/find-table';
import type { TablesSettings } from '../tables-config';
import { tablesOfAgents } from './assignments';
import { createEmbeddingsClient } from './embeddings/embeddings-client';
import { VectorStore } from './embeddings/vector-store';
import { HITS_DEFAULT, HITS_MAX } from './search-schemas';
import { TableSearch, type HybridSearch } from './table-search';

export interface KnowledgeSearchDeps {
  orm: OrmService;
  tenants: TenantService;
  egress: Egress;
  settings: TablesSettings;
  /** Where a failing query embedding is reported (search goes on without it). */
  logger?: Logger;
}

/** Vector similarity when an embeddings API is configured (the database must also have pgvector, checked when searching). */
export function hybridSearch(egress: Egress, settings: TablesSettings, store: VectorStore): HybridSearch | null {
  const client = createEmbeddingsClient(egress, settings);
  return client ? { client, store } : null;
}

const hitsWanted = (limit: number | undefined) => Math.min(HITS_MAX, Math.max(1, Math.floor(limit ?? HITS_DEFAULT)));

/** Searches one table of the current tenant; TableNotFoundError for an unknown one. */
export async function searchTable(em: EntityManager, search: TableSearch, tableUuid: string, query: string, limit?: number): Promise<KnowledgeHit[]> {
  const table = await findTable(em, tableUuid);
  return search.search(em, table.tenantUuid, [table], query, hitsWanted(limit));
}

/** Searches every table assigned to the agent (optionally those of one mode), ranked together; [] when it has none. */
export async function searchAgentTables(em: EntityManager, search: TableSearch, agentUuid: string, query: string, options: { limit?: number; mode?: AssignmentMode }): Promise<KnowledgeHit[]> {
  const tables = ((await tablesOfAgents(em, [agentUuid], options.mode)).get(agentUuid) ?? []).map(({ table }) => table);
  if (tables.length === 0) return [];
  return search.search(em, tables[0].tenantUuid, tables, query, hitsWanted(options.limit));
}

/**
 * The KnowledgeSearch service: the routes' code, on the EntityManager of the current
 * request or message (so the current tenant and transaction).
 */
/**
 * An agent's tables, read by the runtime on every turn (its prompt names them): prepared,
 * without the ORM's two queries and their tenant-filter joins.
 */
const TABLES_OF_AGENT = preparedStatement(
  'tables.tables-of-agent',
  'select t.uuid as table_uuid, t.name, a.mode from data_table_assignments a join data_tables t on t.uuid = a.table_uuid and t.tenant_uuid = a.tenant_uuid ' +
    'where a.tenant_uuid = $1 and a.agent_uuid = $2',
);

export function createKnowledgeSearch({ orm, tenants, egress, settings, logger }: KnowledgeSearchDeps): KnowledgeSearch {
  const search = new TableSearch(hybridSearch(egress, settings, new VectorStore(logger)), logger);
  return {
    searchTable: (tableUuid, query, options = {}) => searchTable(orm.em, search, tableUuid, query, options.limit),
    searchAgent: (agentUuid, query, options = {}) => searchAgentTables(orm.em, search, agentUuid, query, options),
    async tablesOf(agentUuid) {
      const rows = await boundQuery<AssignedTable>(orm.em, TABLES_OF_AGENT, [tenants.require().uuid, agentUuid]);
      // By name as tablesOfAgents sorts (the database's collation may order names otherwise).
      return rows.sort((a, b) => a.name.localeCompare(b.name) || a.table_uuid.localeCompare(b.table_uuid));
    },
  };
}
