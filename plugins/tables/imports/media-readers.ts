import { ContributedDeps, contributeWithDeps, contributedDepsRef, createExtensionPoint, type DepsMap } from '../../../core';
import type { ImportItem } from './import-reader';

/**
 * The content the tables plugin recognises in an upload but does not read itself: audio
 * needs a speech-to-text provider, which another plugin (transcriptions) brings.
 */
export type MediaFormat = 'audio';

/** An upload as the route got it, before anything is stored. */
export interface MediaUpload {
  /** The temporary file of the upload (read it; never move or delete it). */
  path: string;
  size: number;
  /** Its first bytes (up to 64 KiB), to judge the content by. */
  head: Buffer;
}

/** The stored upload, written back to a temporary file for the reader (deleted after `read`). */
export interface MediaFile {
  path: string;
  size: number;
  /** What `accept` returned for it. */
  options: Record<string, unknown>;
}

/**
 * Reads one kind of media into a table (`POST /data/import/file` with audio, say).
 * Contributed by another plugin with `contributeImportMediaReader`; its code gets the
 * services it names in `deps`, resolved as its own plugin's, as the second argument.
 */
export interface ImportMediaReader {
  format: MediaFormat;
  /** What it takes, for the 422 of content of its kind it does not (`wav, mp3, m4a, ogg/opus or webm`). */
  accepts: string;
  deps?: DepsMap;
  /**
   * Whether it can work now (its provider configured). One that cannot is treated as
   * missing: the upload keeps the 422 of content no reader takes.
   */
  available(deps: Readonly<Record<string, unknown>>): boolean;
  /**
   * In the request, before the upload is stored: null when the content is not of a kind
   * it takes (judged by the content, never the name); otherwise the options kept with
   * the import for `read`. Throws a ValidationError at `file` for content it refuses (a
   * limit). The request's transaction is open: do not call other systems here.
   */
  accept(upload: MediaUpload, deps: Readonly<Record<string, unknown>>): Promise<Record<string, unknown> | null>;
  /**
   * In the import job's prepare, with no transaction open (it may call other systems and
   * take minutes): the columns, then the rows. An ImportSourceError fails the import with
   * its message; anything else is retried with the job (up to its attempts), then fails it.
   */
  read(file: MediaFile, deps: Readonly<Record<string, unknown>>): AsyncIterable<ImportItem>;
}

/** Other plugins add media readers here, one per format (two for one format are a boot error). */
export const importMediaReaders = createExtensionPoint<ImportMediaReader>({ id: 'tables.importMediaReaders', keyOf: (reader) => reader.format });

/** Where plugins hand over the services their readers name (one per kernel, a tables service). */
export const importMediaDepsRef = contributedDepsRef<ImportMediaReader>('tables.importMediaDeps');

export const createImportMediaDeps = () => new ContributedDeps<ImportMediaReader>((reader) => `import media reader "${reader.format}"`, 'contributeImportMediaReader(...)');

/**
 * The `definePlugin` members of a plugin that adds a media reader: the reader's `deps`
 * resolved as the plugin's own and handed over by its init (merge them with the plugin's
 * own `contributes`, `deps` and `init`).
 */
export const contributeImportMediaReader = (reader: ImportMediaReader) => contributeWithDeps(importMediaReaders, reader, importMediaDepsRef);

/** A contributed reader bound to its deps, as the import routes and job use it. */
export interface BoundMediaReader {
  accepts: string;
  accept(upload: MediaUpload): Promise<Record<string, unknown> | null>;
  read(file: MediaFile): AsyncIterable<ImportItem>;
}

/** The contributed readers, looked up when used (their plugins' init, which hands over their deps, runs after ours). */
export interface MediaReaders {
  /** The reader of `format` when one is contributed and available now. */
  get(format: string): BoundMediaReader | undefined;
  isMedia(format: string): format is MediaFormat;
}

const MEDIA_FORMATS: readonly string[] = ['audio'] satisfies MediaFormat[];

export function mediaReaders(readers: readonly ImportMediaReader[], registry: ContributedDeps<ImportMediaReader>): MediaReaders {
  return {
    get(format) {
      const reader = readers.find((candidate) => candidate.format === format);
      if (!reader) return undefined;
      const deps = reader.deps ? registry.of(reader) : {};
      if (!reader.available(deps)) return undefined;
      return { accepts: reader.accepts, accept: (upload) => reader.accept(upload, deps), read: (file) => reader.read(file, deps) };
    },
    isMedia: (format): format is MediaFormat => MEDIA_FORMATS.includes(format),
  };
}

