import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { TableImport } from './table-import.entity';

/**
 * A slice of an import's uploaded (or pasted) content, in order. The content lives in
 * the database, not on the API server's disk, so any worker process can run the import
 * and read it as a stream; the chunks go when the import finishes.
 */
@Entity({ tableName: 'data_table_import_chunks' })
@Index({ name: 'data_table_import_chunks_order_index', properties: ['importUuid', 'seq'] })
export class ImportUploadChunk extends TenantScopedEntity {
  @ManyToOne(() => TableImport, { mapToPk: true, fieldName: 'import_uuid', deleteRule: 'cascade' })
  importUuid!: string;

  @Property({ type: 'integer' })
  seq!: number;

  @Property({ type: 'blob' })
  data!: Buffer;
}
