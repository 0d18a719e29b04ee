import { NotFoundError, defineRoute, type AnyRoute, type BusService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { findTable } from '../tables/find-table';
import { queueIndexSync } from './index-sync';
import { searchAgentTables, searchTable } from './knowledge-service';
import { AgentParams, AgentSearchBody, HITS_DEFAULT, SearchEnvelope, SyncEnvelope, TableParams, TableSearchBody } from './search-schemas';
import type { TableSearch } from './table-search';

const tags = ['tables'];

const RANKING =
  'Ranking fuses, by reciprocal rank fusion, PostgreSQL full-text search in the table’s language (`websearch_to_tsquery`, ranked by `ts_rank_cd`, ' +
  'so the query’s words close together rank first) with a typo-forgiving list (each query word’s nearest spellings in the table’s vocabulary by ' +
  '`pg_trgm` similarity, ranked by how many of the query’s words a record holds), plus vector similarity where an embeddings API is configured and ' +
  'the database has pgvector. A table whose index is `stale` (a bulk import not yet synced) answers from the records indexed so far; ' +
  'records written one at a time are searchable at once.';

type SearchRouteDeps = { bus: BusService; agents: AgentDirectory; search: TableSearch };

/** Searching a table or an agent's tables, and refreshing a table's index. */
export const searchRoutes = (deps: SearchRouteDeps): AnyRoute[] => [searchTableRoute(deps.search), searchAgentTablesRoute(deps), syncIndexRoute(deps.bus)];

const searchTableRoute = (search: TableSearch) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/:uuid/search',
    // A read whose wait for the query's embedding must hold no connection: the search opens its own short transactions (table-search.ts).
    transactional: false,
    summary: 'Search a table',
    description: `The table’s records that best match the query, best first, at most \`limit\` (default ${HITS_DEFAULT}). ${RANKING}`,
    tags,
    scope: 'read',
    params: TableParams,
    body: TableSearchBody,
    errors: [404],
    response: SearchEnvelope,
    handler: async ({ params, body, em }) => {
      const items = await searchTable(em, search, params.uuid, body.query, body.limit);
      return { success: true, message: `${items.length} matching records`, data: { items, count: items.length } };
    },
  });

const searchAgentTablesRoute = ({ agents, search }: SearchRouteDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/agents/:uuid/knowledge/search',
    // A read whose wait for the query's embedding must hold no connection: the search opens its own short transactions (table-search.ts).
    transactional: false,
    summary: 'Search an agent’s tables',
    description:
      'Searches every table assigned to the agent (only those of `mode` when given) and ranks their records together, as the agent does at runtime. ' +
      `An agent without tables answers no items. ${RANKING}`,
    tags,
    scope: 'read',
    params: AgentParams,
    body: AgentSearchBody,
    errors: [404],
    response: SearchEnvelope,
    handler: async ({ params, body, em }) => {
      if (!(await agents.exists(params.uuid))) throw new NotFoundError('Agent not found');
      const items = await searchAgentTables(em, search, params.uuid, body.query, { limit: body.limit, mode: body.mode });
      return { success: true, message: `${items.length} matching records`, data: { items, count: items.length } };
    },
  });

const syncIndexRoute = (bus: BusService) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/data/:uuid/sync',
    summary: 'Refresh a table’s search index',
    description:
      'Rebuilds the search index from the records as a background job: the table’s index turns `syncing`, then `current` with a new `indexed_at` ' +
      '(read it with `GET /api/v1/data/{uuid}`). Needed after bulk changes (imports queue one themselves); records written one at a time are ' +
      'indexed as they are written. Asking again while a sync waits replaces the waiting one; while one runs, queues one more, which sees every ' +
      'change made meanwhile. Search keeps answering from the current index during a sync.',
    tags,
    params: TableParams,
    errors: [404],
    response: SyncEnvelope,
    handler: async ({ params, em }) => {
      const table = await findTable(em, params.uuid);
      await queueIndexSync(em, bus, table);
      return {
        success: true,
        message: 'Index sync queued',
        data: { table_uuid: table.uuid, index: { status: table.indexStatus, indexed_at: table.indexedAt ? new Date(table.indexedAt).toISOString() : null } },
      };
    },
  });
