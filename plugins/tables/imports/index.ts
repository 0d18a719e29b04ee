import type { BusService, Egress, HttpService, Logger, OrmService } from '../../../core';
import type { TablesSettings } from '../tables-config';
import { TABLE_TOPICS, type ImportJob } from '../topics';
import { registerImportRoutes } from './import-routes';
import { IMPORT_ATTEMPTS, runImport } from './run-import';

export interface ImportDeps {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  settings: TablesSettings;
}

/**
 * Imports: the routes that accept pasted text, files and websites, and the job that
 * reads them into tables (TABLE_TOPICS.importRun).
 */
export function registerImports(deps: ImportDeps): void {
  registerImportRoutes(deps.http, deps);
  deps.bus.consume<ImportJob>(
    { name: 'run-import', topics: [TABLE_TOPICS.importRun], concurrency: 2, retry: { attempts: IMPORT_ATTEMPTS } },
    (message, { em }) => runImport(deps, message, em),
  );
}
