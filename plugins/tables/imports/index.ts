import type { BusService, Egress, HttpService, Logger, OrmService, QuotaService } from '../../../core';
import type { TablesSettings } from '../tables-config';
import { TABLE_TOPICS, type ImportJob } from '../topics';
import { importRoutes } from './import-routes';
import type { MediaReaders } from './media-readers';
import { IMPORT_ATTEMPTS, prepareImport, runImport, type PreparedImport } from './run-import';

export interface ImportDeps {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  settings: TablesSettings;
  quotas?: QuotaService;
  /** The media readers other plugins contribute (importMediaReaders). */
  media: MediaReaders;
}

export {
  importMediaReaders,
  importMediaDepsRef,
  createImportMediaDeps,
  contributeImportMediaReader,
  mediaReaders,
  type ImportMediaReader,
  type MediaFormat,
  type MediaUpload,
  type MediaFile,
} from './media-readers';
export { ImportSourceError, type ImportItem } from './import-reader';

/**
 * Imports: the routes that accept pasted text, files (media such as audio through the
 * readers other plugins contribute) and websites, and the job that reads them into
 * tables (TABLE_TOPICS.importRun).
 */
export function registerImports(deps: ImportDeps): void {
  for (const route of importRoutes(deps)) deps.http.route(route);
  deps.bus.consume<ImportJob, PreparedImport | null>(
    {
      name: 'run-import',
      topics: [TABLE_TOPICS.importRun],
      concurrency: 2,
      retry: { attempts: IMPORT_ATTEMPTS },
      // A website is crawled, and media sent to its reader's provider, here, before the job's transaction opens (run-import.ts).
      prepare: (message, { em }) => prepareImport(deps, message, em),
    },
    (message, { em, prepared }) => runImport(deps, message, em, prepared),
  );
}
