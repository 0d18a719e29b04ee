import { createServiceRef } from '../../core';
import type { AssignmentMode } from './entities';

export interface KnowledgeHit {
  table_uuid: string;
  table_name: string;
  record_uuid: string;
  /** Fused rank score: higher is better; comparable within one answer only. */
  score: number;
  values: Record<string, unknown>;
  /** The matching text with the matched words marked `<b>...</b>`. */
  snippet: string;
}

export interface AssignedTable {
  table_uuid: string;
  name: string;
  mode: AssignmentMode;
}

/**
 * Ranked search over tables, for the agent runtime and flows, in the current tenant and
 * transaction: PostgreSQL full-text search and trigram similarity, fused (plus vector
 * similarity where embeddings and pgvector are configured).
 */
export interface KnowledgeSearch {
  /** Throws TableNotFoundError for an unknown table. */
  searchTable(tableUuid: string, query: string, options?: { limit?: number }): Promise<KnowledgeHit[]>;
  /** Across every table assigned to the agent (optionally only those of one mode); [] when it has none. */
  searchAgent(agentUuid: string, query: string, options?: { limit?: number; mode?: AssignmentMode }): Promise<KnowledgeHit[]>;
  tablesOf(agentUuid: string): Promise<AssignedTable[]>;
}

export const knowledgeSearchRef = createServiceRef<KnowledgeSearch>('tables.knowledgeSearch');
