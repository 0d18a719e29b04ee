import { Migration } from '@mikro-orm/migrations';

/**
 * An import's uploaded content lives in `data_table_import_chunks` only until its job
 * has read it, so compressing it buys nothing: PostgreSQL compressed every 1 MB chunk
 * (pglz) on the way in. Stored as it is (`storage external`: out of line, not
 * compressed), a 17.9 MB CSV went in in 80 ms instead of 270 ms (measured here,
 * PostgreSQL 15), for 19.5 MB on disk instead of 5.7 MB while the import runs.
 */
export class Migration0004UploadChunkStorage extends Migration {
  override up(): void {
    this.addSql('alter table "data_table_import_chunks" alter column "data" set storage external;');
  }

  override down(): void {
    this.addSql('alter table "data_table_import_chunks" alter column "data" set storage extended;');
  }
}
