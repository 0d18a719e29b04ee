import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusMessage, BusService, Egress, Logger, OrmService, QuotaService } from '../../../core';
import { rowRoom } from '../records/row-quota';
import { TableImport } from '../entities';
import type { ColumnType } from '../model/column-types';
import { findTable } from '../tables/find-table';
import { markIndexStale } from '../tables/index-staleness';
import type { TablesSettings } from '../tables-config';
import type { ImportJob } from '../topics';
import { TYPE_SAMPLE_ROWS, inferCellType } from './cell-values';
import { cleanColumnNames, planColumns, recordValues } from './column-plan';
import { deleteContent, readContent } from './import-content';
import { ImportSourceError, type ImportItem, type ImportReaderContext } from './import-reader';
import type { MediaReaders } from './media-readers';
import { ProgressReporter, type Progress } from './progress-reporter';
import { READERS } from './readers';
import { RecordWriter } from './record-writer';
import { RowErrors } from './row-errors';

export interface ImportRunnerDeps {
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  settings: TablesSettings;
  /** The tenant's `table_rows` quota: an import past it fails with the quota's message, its rows rolled back. */
  quotas?: QuotaService;
  /** The readers other plugins contribute (audio, read by the transcriptions plugin). */
  media: MediaReaders;
}

/** Deliveries of an import job; after the last one an unexpected failure fails the import instead of retrying it. */
export const IMPORT_ATTEMPTS = 3;

/**
 * What the job's prepare read before the transaction opened: a website's items (its
 * crawl, bounded by the page limit) or a media upload's (a recording's transcribed
 * segments), or why reading failed. Other uploads are read in the handler, streamed
 * from the stored content.
 */
export type PreparedImport = { items: ImportItem[]; progress: Progress | undefined } | { failure: unknown; progress: Progress | undefined };

/** Sources read over the network, which the job reads in its prepare (no transaction waits on a slow site or a transcription provider). */
const readBeforeTransaction = (deps: ImportRunnerDeps, format: string) => format === 'website' || deps.media.isMedia(format);

interface Outcome {
  rows: number;
  errors: RowErrors;
}

/**
 * The import job. Every row goes in within the handler's transaction (under a
 * savepoint), so a crashed worker leaves nothing half-imported and the redelivered job
 * starts over; status and progress are written beside it, through the pool, to be
 * watched. At the end, in the same transaction: the import completed with its counts
 * and errors, the uploaded content deleted, the table's index marked stale and a sync
 * queued. A source that cannot be read (ImportSourceError) rolls the rows back and
 * fails the import with its message; the message is handled (no retries of a bad file).
 * A website has been crawled by then, in prepareImport: `prepared` holds its items.
 */
export async function runImport(deps: ImportRunnerDeps, message: BusMessage<ImportJob>, em: EntityManager, prepared: PreparedImport | null): Promise<void> {
  const tenantUuid = message.tenant!.uuid;
  const job = await em.findOne(TableImport, { uuid: message.payload.import_uuid });
  if (!job || job.status === 'completed' || job.status === 'failed') return;
  if (readBeforeTransaction(deps, job.format) && !prepared) return; // its prepare found it no longer queued or running

  let outcome: Outcome | undefined;
  let failure: unknown = prepared && 'failure' in prepared ? prepared.failure : undefined;
  // Prepare reported a website's progress already; an upload read here reports its bytes while the rows are written.
  const progress = prepared ? null : new ProgressReporter(deps.orm.fork(), tenantUuid, job.uuid, deps.logger);
  if (progress && !(await progress.start())) return;
  if (failure === undefined) {
    const read = prepared && 'items' in prepared ? prepared.items : null;
    try {
      outcome = await em.transactional((tx) => importRows(deps, tx, job, tenantUuid, progress, read));
    } catch (error) {
      failure = error;
    }
  }
  const last = progress ? await progress.stop() : prepared?.progress;
  if (outcome) {
    const bytes = job.progressUnit === 'bytes';
    await finish(em, job, tenantUuid, {
      status: 'completed',
      rowsImported: outcome.rows,
      errorCount: outcome.errors.count,
      errors: outcome.errors.kept,
      // A completed import read all of its upload (a reader may stop before the end); a crawl, the pages it reported.
      progressDone: bytes ? Number(job.progressTotal) : (last?.done ?? 0),
      progressTotal: bytes ? job.progressTotal : (last?.total ?? last?.done ?? 0),
    });
    await markIndexStale(em, deps.bus, await findTable(em, job.tableUuid));
    return;
  }
  const unreadable = failure instanceof ImportSourceError;
  if (!unreadable && message.attempt < IMPORT_ATTEMPTS) throw failure;
  if (!unreadable) deps.logger.error('import failed on its last attempt', { import_uuid: job.uuid, error: (failure as Error).stack ?? String(failure) });
  await finish(em, job, tenantUuid, {
    status: 'failed',
    message: unreadable ? (failure as Error).message : `The import failed: ${(failure as Error).message}`,
    progressDone: last?.done ?? 0,
  });
}

type Result = Partial<Pick<TableImport, 'status' | 'message' | 'rowsImported' | 'errorCount' | 'errors' | 'progressDone' | 'progressTotal'>>;

/** The outcome, in the handler's transaction: nothing else writes the import row any more (the reporter has stopped). */
async function finish(em: EntityManager, job: TableImport, tenantUuid: string, result: Result): Promise<void> {
  Object.assign(job, result, { finishedAt: new Date() });
  await em.flush();
  await deleteContent(em, tenantUuid, job.uuid);
}

/**
 * The job's prepare: for a source read over the network (a website, or media a
 * contributed reader sends to its provider), marks the import running and reads all of
 * its items, reporting a crawl's progress as it goes, before the message's transaction
 * opens. Null for other sources (the handler streams them), or when the import is no
 * longer queued or running. A source that cannot be read, or an unexpected failure on
 * the last attempt, is handed to the handler to fail the import; an unexpected failure
 * before the last attempt is thrown, so the bus retries the job.
 */
export async function prepareImport(deps: ImportRunnerDeps, message: BusMessage<ImportJob>, em: EntityManager): Promise<PreparedImport | null> {
  const tenantUuid = message.tenant!.uuid;
  const job = await em.findOne(TableImport, { uuid: message.payload.import_uuid });
  if (!job || job.status === 'completed' || job.status === 'failed' || !readBeforeTransaction(deps, job.format)) return null;
  const progress = new ProgressReporter(deps.orm.fork(), tenantUuid, job.uuid, deps.logger);
  if (!(await progress.start())) return null;
  const items: ImportItem[] = [];
  try {
    const source = deps.media.isMedia(job.format)
      ? readMedia(deps, em, job, tenantUuid)
      : READERS[job.format](
          readerContext(deps, job, progress, () => {
            throw new Error(`a ${job.format} import has no stored content`);
          }),
        );
    for await (const item of source) items.push(item);
  } catch (error) {
    const last = await progress.stop();
    if (!(error instanceof ImportSourceError) && message.attempt < IMPORT_ATTEMPTS) throw error;
    return { failure: error, progress: last };
  }
  return { items, progress: await progress.stop() };
}

/** Why a media import cannot be read when its reader is gone (its plugin removed, or its provider no longer configured). */
const MEDIA_UNAVAILABLE = { audio: 'An audio import needs a transcription provider, and none is configured now' };

/**
 * A media upload read by its contributed reader: the stored content written back to a
 * temporary file (read slice by slice outside any transaction), deleted after the read.
 */
async function* readMedia(deps: ImportRunnerDeps, em: EntityManager, job: TableImport, tenantUuid: string): AsyncGenerator<ImportItem> {
  const format = job.format as string;
  if (!deps.media.isMedia(format)) throw new Error(`${format} is not a media format`);
  const reader = deps.media.get(format);
  if (!reader) throw new ImportSourceError(MEDIA_UNAVAILABLE[format]);
  const dir = await mkdtemp(path.join(tmpdir(), 'table-import-'));
  try {
    const file = path.join(dir, 'upload');
    await pipeline(readContent(em, tenantUuid, job.uuid, () => undefined), createWriteStream(file));
    yield* reader.read({ path: file, size: Number(job.progressTotal ?? 0), options: job.options });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function readerContext(deps: ImportRunnerDeps, job: TableImport, progress: ProgressReporter | null, content: ImportReaderContext['content']): ImportReaderContext {
  const options = job.options as { max_pages?: number; max_depth?: number };
  return {
    import: job,
    content,
    contentSize: Number(job.progressTotal ?? 0),
    egress: deps.egress,
    crawl: {
      maxPages: Math.min(options.max_pages ?? Infinity, deps.settings.crawlMaxPages),
      maxDepth: Math.min(options.max_depth ?? Infinity, deps.settings.crawlMaxDepth),
      pageTimeoutMs: deps.settings.crawlPageTimeoutMs,
    },
    progress: (done, total) => progress?.report(done, total),
  };
}

/** Reads the source (or takes the items prepare read) and writes its rows, in `tx` (the savepoint). */
async function importRows(
  deps: ImportRunnerDeps,
  tx: EntityManager,
  job: TableImport,
  tenantUuid: string,
  progress: ProgressReporter | null,
  read: ImportItem[] | null,
): Promise<Outcome> {
  const size = Number(job.progressTotal ?? 0);
  const source = read ? replay(read) : READERS[job.format](readerContext(deps, job, progress, () => readContent(tx, tenantUuid, job.uuid, (bytes) => progress?.report(bytes, size))));
  const items = source[Symbol.asyncIterator]();

  const first = await items.next();
  if (first.done || first.value.kind !== 'columns' || first.value.names.length === 0) throw new ImportSourceError('The source names no columns');
  const names = cleanColumnNames(first.value.names);
  const given = first.value.types ?? [];
  // The first rows are held to infer the types the source does not give.
  const sample: ImportItem[] = [];
  for (let rows = 0; rows < TYPE_SAMPLE_ROWS; ) {
    const next = await items.next();
    if (next.done) break;
    sample.push(next.value);
    if (next.value.kind === 'row') rows++;
  }
  const sampleRows = sample.flatMap((item) => (item.kind === 'row' ? [item.cells] : []));
  const types: ColumnType[] = names.map((_, index) => given[index] ?? inferCellType(sampleRows.map((cells) => cells[index])));

  // The row lock that column changes take (see addColumns), held to the end: two imports into one table add
  // columns one after the other. `for no key update` rather than findTable's `for update`, so records written to
  // the table meanwhile (their foreign key takes a key-share lock) are not held up by a long import.
  await tx.getConnection().execute('select 1 from data_tables where tenant_uuid = ? and uuid = ? for no key update', [tenantUuid, job.tableUuid], 'all', tx.getTransactionContext());
  const table = await findTable(tx, job.tableUuid);
  const columns = await planColumns(tx, table, names, types);
  const writer = new RecordWriter(tx, tenantUuid, table.uuid);
  const errors = new RowErrors();
  const quota = await rowRoom(deps.quotas, tx, tenantUuid);
  let added = 0;
  const take = async (item: ImportItem) => {
    if (item.kind === 'bad-row') return errors.add(item.row, item.message);
    if (item.kind !== 'row') throw new ImportSourceError('The source named its columns twice');
    const checked = recordValues(columns, item.cells);
    if ('problem' in checked) return errors.add(item.row, checked.problem);
    // Handled like a source that cannot be read: the import fails with the quota's message and is not retried.
    if (++added > quota.room) throw new ImportSourceError(quota.error!.message);
    await writer.add(checked.values);
  };
  try {
    for (const item of sample) await take(item);
    for (let next = await items.next(); !next.done; next = await items.next()) await take(next.value);
    return { rows: await writer.finish(), errors };
  } finally {
    // Nothing may run on the connection while the savepoint is rolled back.
    await writer.settle();
  }
}

/** Items read beforehand, handed out as a reader hands out its own. */
async function* replay(items: readonly ImportItem[]): AsyncGenerator<ImportItem> {
  yield* items;
}
