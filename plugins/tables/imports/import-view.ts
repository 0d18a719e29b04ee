import type { Static } from '../../../core';
import type { TableImport } from '../entities';
import type { ImportSchema } from './import-schemas';

export type ImportJson = Static<typeof ImportSchema>;

const iso = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());

/** An import as the API shows it. */
export function importJson(job: TableImport): ImportJson {
  return {
    uuid: job.uuid,
    table_uuid: job.tableUuid,
    source: job.source,
    format: job.format,
    status: job.status,
    // bigint columns come back as strings.
    progress: { done: Number(job.progressDone), total: job.progressTotal === null ? null : Number(job.progressTotal), unit: job.progressUnit },
    rows_imported: job.rowsImported,
    error_count: job.errorCount,
    errors: job.errors,
    message: job.message,
    source_name: job.sourceName,
    created_at: iso(job.createdAt)!,
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}
