import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { RecordIds } from './record-ids';

/** Rows per insert statement, and the most JSON text one statement carries. */
const BATCH_ROWS = 2000;
const BATCH_CHARS = 4 * 1024 * 1024;

/**
 * Writes imported records in large multi-row inserts, in the caller's transaction: each
 * batch goes as one JSON array, a bound parameter (through the transaction's Kysely:
 * MikroORM's `execute` would inline it as an escaped literal) that PostgreSQL unpacks
 * with `jsonb_array_elements`, which measured faster than COPY into the jsonb column.
 * One statement is in flight while the next batch is built, so parsing and writing
 * overlap; memory holds about two batches. Records only: the search index is rebuilt
 * afterwards by a sync.
 */
export class RecordWriter {
  private batch: string[] = [];
  private chars = 0;
  private inFlight: Promise<void> = Promise.resolve();
  private written = 0;
  private readonly ids = new RecordIds();

  constructor(
    private readonly em: EntityManager,
    private readonly tenantUuid: string,
    private readonly tableUuid: string,
  ) {}

  async add(values: Record<string, unknown>): Promise<void> {
    const entry = JSON.stringify(values);
    this.batch.push(entry);
    this.chars += entry.length;
    if (this.batch.length >= BATCH_ROWS || this.chars >= BATCH_CHARS) await this.send();
  }

  /** Writes what is left; returns the number of records written. */
  async finish(): Promise<number> {
    if (this.batch.length > 0) await this.send();
    await this.inFlight;
    return this.written;
  }

  /** Waits for the statement in flight, whatever its outcome (before a rollback). */
  async settle(): Promise<void> {
    await this.inFlight.catch(() => {});
  }

  private async send(): Promise<void> {
    const values = this.batch;
    this.batch = [];
    this.chars = 0;
    await this.inFlight;
    this.inFlight = this.insert(values);
    // Awaited by the next send or by finish; until then its failure must not count as unhandled.
    this.inFlight.catch(() => {});
  }

  private async insert(values: string[]): Promise<void> {
    const ids = this.ids.next(values.length);
    const entries = values.map((json, index) => `["${ids[index]}",${json}]`).join(',');
    await sql`
      insert into data_table_records (uuid, tenant_uuid, created_at, updated_at, table_uuid, "values")
      select (entry->>0)::uuid, ${this.tenantUuid}, now(), now(), ${this.tableUuid}, entry->1
      from jsonb_array_elements(${`[${entries}]`}::jsonb) as entry`.execute(this.em.getKysely());
    this.written += values.length;
  }
}
