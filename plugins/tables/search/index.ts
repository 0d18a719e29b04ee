import { Type, type BusService, type Egress, type HttpService, type Logger, type OrmService } from '../../../core';
import type { AgentDirectory, AgentSettingsSlot } from '../../agents';
import type { KnowledgeSearch } from '../knowledge-search';
import type { RecordIndexer } from '../model/record-indexer';
import type { TablesSettings } from '../tables-config';

export interface SearchDeps {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  agents: AgentDirectory;
  settings: TablesSettings;
}

// STUBS: replaced by the search helper.
export function createRecordIndexer(): RecordIndexer {
  return { refresh: async () => {}, remove: async () => {} };
}

export function createKnowledgeSearch(_deps: { orm: OrmService; egress: Egress; settings: TablesSettings }): KnowledgeSearch {
  const missing = () => Promise.reject(new Error('KnowledgeSearch is not built yet'));
  return { searchTable: missing, searchAgent: missing, tablesOf: missing };
}

export const knowledgeSlot: AgentSettingsSlot = {
  key: 'knowledge',
  schema: Type.Object({}),
  load: async () => new Map(),
};

export function registerSearch(_deps: SearchDeps): void {}
