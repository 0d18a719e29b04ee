import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { DataTable } from './data-table.entity';

export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';
export type ImportSource = 'copypaste' | 'file' | 'website';
export type ImportFormat = 'csv' | 'xlsx' | 'json' | 'xml' | 'pdf' | 'website';
/** What `progress` counts: bytes of the upload read, or pages crawled. */
export type ProgressUnit = 'bytes' | 'pages';

export interface ImportRowError {
  row: number;
  message: string;
}

/**
 * One import into a table, run as a bus job. Its progress is written as it goes (outside
 * the job's transaction, so it can be watched); the rows themselves commit all at once.
 */
@Entity({ tableName: 'data_table_imports' })
export class TableImport extends TenantScopedEntity {
  @ManyToOne(() => DataTable, { mapToPk: true, fieldName: 'table_uuid', deleteRule: 'cascade', index: true })
  tableUuid!: string;

  /** Whether the import made the table (true) or appends to one that existed. */
  @Property({ type: 'boolean' })
  createsTable!: boolean;

  @Property({ type: 'text' })
  source!: ImportSource;

  @Property({ type: 'text' })
  format!: ImportFormat;

  /** The uploaded file's name or the crawled URL: shown, never used as a path. */
  @Property({ type: 'text', default: '' })
  sourceName: string & Opt = '';

  /** Format options (delimiter, sheet, record element, ...). */
  @Property({ type: 'json' })
  options: Record<string, unknown> & Opt = {};

  @Property({ type: 'text', default: 'queued' })
  status: ImportStatus & Opt = 'queued';

  @Property({ type: 'bigint', default: 0 })
  progressDone: number & Opt = 0;

  @Property({ type: 'bigint', nullable: true })
  progressTotal: number | null = null;

  @Property({ type: 'text', default: 'bytes' })
  progressUnit: ProgressUnit & Opt = 'bytes';

  @Property({ type: 'integer', default: 0 })
  rowsImported: number & Opt = 0;

  /** Every bad row counts here; `errors` keeps the first ones (IMPORT_ERRORS_KEPT). */
  @Property({ type: 'integer', default: 0 })
  errorCount: number & Opt = 0;

  @Property({ type: 'json' })
  errors: ImportRowError[] & Opt = [];

  /** Why a failed import failed. */
  @Property({ type: 'text', nullable: true })
  message: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;
}
