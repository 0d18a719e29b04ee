import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, type BusService, type TenantRef } from '../../../core';
import { DataTable, TableImport, type ImportFormat, type ImportSource, type ProgressUnit } from '../entities';
import { findTable } from '../tables/find-table';
import type { TablesSettings } from '../tables-config';
import { TABLE_TOPICS, type ImportJob } from '../topics';
import { storeContent } from './import-content';
import type { MediaFormat } from './media-readers';

export interface ImportRequest {
  source: ImportSource;
  /** A format of this plugin's readers, or of a contributed media reader (stored as text like them). */
  format: ImportFormat | MediaFormat;
  sourceName: string;
  options: Record<string, unknown>;
  /** Append to this table; else a table is created, named `tableName`. */
  tableUuid?: string;
  tableName: string;
  progressUnit: ProgressUnit;
  /** The content to store (file and copypaste imports), as slices. */
  content?: { slices: AsyncIterable<Buffer> | Iterable<Buffer>; size: number };
}

/**
 * What every import route does once its input is checked, in the request's
 * transaction: finds the table to append to (404 if it is not the tenant's) or creates
 * one without columns (the job adds them), records the import, stores its content and
 * queues the job. All of it commits together, or none of it.
 */
export async function createImport(em: EntityManager, bus: BusService, settings: TablesSettings, tenant: TenantRef, request: ImportRequest): Promise<TableImport> {
  let table: DataTable;
  if (request.tableUuid !== undefined) table = await findTable(em, request.tableUuid);
  else {
    const name = request.tableName.trim();
    if (name === '') throw ValidationError.field('name', 'must not be empty');
    table = em.create(DataTable, { name, searchLanguage: settings.searchLanguage });
  }
  const job = em.create(TableImport, {
    tableUuid: table.uuid,
    createsTable: request.tableUuid === undefined,
    source: request.source,
    // The entity's union names this plugin's readers only; the column is text.
    format: request.format as ImportFormat,
    sourceName: request.sourceName,
    options: request.options,
    progressUnit: request.progressUnit,
    progressTotal: request.content?.size ?? null,
    errors: [],
  });
  await em.flush();
  if (request.content) await storeContent(em, tenant.uuid, job.uuid, request.content.slices);
  await bus.publish(TABLE_TOPICS.importRun, { import_uuid: job.uuid } satisfies ImportJob);
  return job;
}
