import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { newUuid } from '../../../core';

/** Size of one stored slice of an upload: big enough for few round trips, small enough to hold one at a time. */
export const CONTENT_SLICE_BYTES = 1024 * 1024;

/**
 * Stores an import's content in `data_table_import_chunks`, slice by slice as it comes
 * (an upload is streamed from its temporary file, never read whole), in the caller's
 * transaction. Slices go as bound parameters (through the transaction's Kysely), sent
 * as binary, rather than inlined as hex literals.
 */
export async function storeContent(em: EntityManager, tenantUuid: string, importUuid: string, slices: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
  let seq = 0;
  for await (const slice of slices) {
    if (slice.length === 0) continue;
    await sql`
      insert into data_table_import_chunks (uuid, tenant_uuid, created_at, updated_at, import_uuid, seq, data)
      values (${newUuid()}, ${tenantUuid}, now(), now(), ${importUuid}, ${seq++}, ${slice})`.execute(em.getKysely());
  }
}

/** Cuts a buffer into stored slices. */
export function* slicesOf(content: Buffer): Generator<Buffer> {
  for (let start = 0; start < content.length; start += CONTENT_SLICE_BYTES) yield content.subarray(start, start + CONTENT_SLICE_BYTES);
}

/**
 * The stored content as a stream, one slice fetched from the database at a time and
 * only when the reader wants more (backpressure), so memory holds about one slice.
 * `onRead` gets the bytes read so far.
 */
export function readContent(em: EntityManager, tenantUuid: string, importUuid: string, onRead: (bytes: number) => void): Readable {
  const connection = em.getConnection();
  async function* slices() {
    let read = 0;
    for (let seq = 0; ; seq++) {
      const rows: Array<{ data: Buffer }> = await connection.execute(
        'select data from data_table_import_chunks where tenant_uuid = ? and import_uuid = ? and seq = ?',
        [tenantUuid, importUuid, seq],
        'all',
        em.getTransactionContext(),
      );
      if (rows.length === 0) return;
      read += rows[0].data.length;
      onRead(read);
      yield rows[0].data;
    }
  }
  return Readable.from(slices(), { objectMode: false, highWaterMark: 1 });
}

/** Drops the stored content once the import has finished with it. */
export async function deleteContent(em: EntityManager, tenantUuid: string, importUuid: string): Promise<void> {
  await em.getConnection().execute(
    'delete from data_table_import_chunks where tenant_uuid = ? and import_uuid = ?',
    [tenantUuid, importUuid],
    'run',
    em.getTransactionContext(),
  );
}
