import { configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { AGENT_TOPICS, agentDirectoryRef, agentSettingsSlots, type AgentDeletedEvent } from '../agents';
import * as entities from './entities';
import { TableAssignment } from './entities';
import { createImportMediaDeps, importMediaDepsRef, importMediaReaders, mediaReaders, registerImports } from './imports';
import { knowledgeSearchRef } from './knowledge-search';
import { Migration0001Tables } from './migrations/0001-tables';
import { Migration0002SearchVectors } from './migrations/0002-search-vectors';
import { Migration0003RecordKeys } from './migrations/0003-record-keys';
import { Migration0004UploadChunkStorage } from './migrations/0004-upload-chunk-storage';
import { createTableRecords } from './records/create-table-records';
import { RecordStore, recordStoreRef } from './records/record-store';
import { recordRoutes } from './records/record-routes';
import { createKnowledgeSearch, createRecordIndexer, knowledgeSlot, registerSearch } from './search';
import { tableRecordsRef } from './table-records';
import { tableRoutes } from './tables/table-routes';
import { tablesConfig } from './tables-config';

// The public API of the tables plugin: what other plugins may import.
export { knowledgeSearchRef, type KnowledgeSearch, type KnowledgeHit, type AssignedTable } from './knowledge-search';
export { tableRecordsRef, type TableRecords, type TableOutline, type FindRecordsOptions, type AggregateOptions, type AggregateResult, type RecordWriteOptions } from './table-records';
export { TABLE_TOPICS, type RecordEvent, type RecordUpdatedEvent, type RecordDeletedEvent } from './topics';
export { TableNotFoundError } from './model/table-errors';
export { COLUMN_TYPES, type ColumnType } from './model/column-types';
export { FILTER_OPERATORS, AGGREGATES, ORDER_DIRECTIONS, operatorsFor, type FilterOperator, type RecordFilter, type RecordSort } from './model/operators';
export type { ColumnJson, RecordJson } from './model/views';
export type { AssignmentMode } from './entities';
export { importMediaReaders, contributeImportMediaReader, ImportSourceError, type ImportMediaReader, type ImportItem, type MediaFormat, type MediaUpload, type MediaFile } from './imports';

/**
 * Tables: the agents' knowledge. Typed datasets with records, filled by hand or by
 * imports, assigned to agents, searched by full text and trigrams (and vectors where
 * configured). Other plugins use `tableRecordsRef` and `knowledgeSearchRef`.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [
    { name: '0001-tables', class: Migration0001Tables },
    { name: '0002-search-vectors', class: Migration0002SearchVectors },
    { name: '0003-record-keys', class: Migration0003RecordKeys },
    { name: '0004-upload-chunk-storage', class: Migration0004UploadChunkStorage },
  ],
  config: tablesConfig,
  // Readers of media (audio) that other plugins contribute, for file imports.
  provides: [importMediaReaders],
  contributes: [agentSettingsSlots.add(knowledgeSlot)],
  services: [
    // One per kernel: where plugins hand over the services their media readers name.
    createServiceFactory({ service: importMediaDepsRef, deps: {}, factory: createImportMediaDeps }),
    // One per kernel, shared by the record routes (init) and tableRecordsRef.
    createServiceFactory({
      service: recordStoreRef,
      deps: { bus: coreServices.bus, quotas: coreServices.quotas },
      factory: ({ bus, quotas }) => new RecordStore(bus, createRecordIndexer(), quotas),
    }),
    createServiceFactory({
      service: tableRecordsRef,
      deps: { orm: coreServices.orm, store: recordStoreRef },
      factory: ({ orm, store }) => createTableRecords(orm, store),
    }),
    createServiceFactory({
      service: knowledgeSearchRef,
      deps: { orm: coreServices.orm, tenants: coreServices.tenant, egress: coreServices.egress, config: configRef(tablesConfig), logger: coreServices.logger },
      factory: ({ orm, tenants, egress, config, logger }) => createKnowledgeSearch({ orm, tenants, egress, settings: config.all(), logger }),
    }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    orm: coreServices.orm,
    egress: coreServices.egress,
    config: configRef(tablesConfig),
    logger: coreServices.logger,
    quotas: coreServices.quotas,
    agents: agentDirectoryRef,
    store: recordStoreRef,
    mediaDeps: importMediaDepsRef,
  },
  init({ http, bus, orm, egress, config, logger, quotas, agents, store, mediaDeps }, { extensions }) {
    const settings = config.all();
    // Static paths under /data/ (`/data/imports`) before `/data/:uuid`, which would take them for a table id.
    registerImports({ http, bus, orm, egress, logger, settings, quotas, media: mediaReaders(extensions.items(importMediaReaders), mediaDeps) });
    for (const route of [...tableRoutes({ bus, searchLanguage: settings.searchLanguage }), ...recordRoutes(store)]) http.route(route);
    registerSearch({ http, bus, orm, egress, logger, agents, settings });
    // No foreign key to `agents` (see the migration): an agent's assignments go when the agent does.
    bus.consume<AgentDeletedEvent>({ name: 'unassign-deleted-agent', topics: [AGENT_TOPICS.deleted] }, async (message, { em }) => {
      if (!message.tenant) return;
      await em.nativeDelete(TableAssignment, { tenantUuid: message.tenant.uuid, agentUuid: message.payload.agent_uuid });
    });
  },
});
