import type { Readable } from 'node:stream';
import { createServiceRef } from '../../core';

/**
 * Where files a plugin keeps go (transcriptions' audio, calls' recordings): the local
 * filesystem under DATA_DIR by default, or an S3-compatible store (AWS S3, MinIO, Ceph)
 * by configuration. Keys are paths relative to the store (`transcriptions/<tenant>/<uuid>.wav`);
 * a caller builds them with the tenant in them, and never from user input alone.
 */
export interface FileStorage {
  /** `fs` or `s3`: which driver is configured. */
  readonly driver: 'fs' | 's3';
  /** Writes the whole body under `key` (replacing what was there); answers what the API shows as `stored_file_path`. */
  put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<{ path: string; size: number }>;
  /** The file's bytes as a stream; throws StoredFileNotFoundError when there is none. */
  read(key: string): Promise<{ body: Readable; size: number; contentType: string }>;
  /**
   * Moves the file under `from` to `to` (replacing what was there), type and all, and
   * answers its new `stored_file_path`; throws StoredFileNotFoundError when there is none. A rename on the filesystem; a copy inside
   * the store then a delete on S3 (no byte passes through this process). For a file
   * written before its final key was known: an upload stored as it streams in, before
   * the request's tenant is.
   */
  move(from: string, to: string): Promise<{ path: string }>;
  /** Deletes it; nothing happens when there is none. */
  remove(key: string): Promise<void>;
  /**
   * A URL the file can be fetched at for `ttlSeconds`, without a token: a presigned GET
   * for S3. Null for the filesystem, where an authenticated route of the owning plugin
   * serves the file instead.
   */
  signedUrl(key: string, ttlSeconds: number): Promise<string | null>;
  /**
   * The stored files whose keys start with `prefix` (`transcriptions/incoming/`; empty:
   * all), in no set order, read from the store a page at a time as the caller iterates;
   * with `olderThan`, only those last modified before it. Only keys the other members
   * take: anything else in the store (a folder marker, a name no key can have) is
   * skipped. A prefix that could leave the store is InvalidStorageKeyError.
   */
  list(prefix: string, options?: { olderThan?: Date }): AsyncIterable<StoredFileEntry>;
  /**
   * Removes writes under `prefix` that never completed and were last touched before
   * `olderThan`, and answers how many: what a process that died during a `put` leaves,
   * never seen by `list` or `read`. The filesystem's are its temporary files (and a
   * content type whose file never arrived), touched as each byte lands; S3's are
   * incomplete multipart uploads, dated when they began (the listing of them gives no later time), so
   * `olderThan` must lie further back than the longest write.
   */
  removeUnfinished(prefix: string, options: { olderThan: Date }): Promise<number>;
}

/** A file `list` finds. */
export interface StoredFileEntry {
  key: string;
  size: number;
  /** When its bytes were last written (the filesystem's mtime, S3's LastModified). */
  modifiedAt: Date;
}

export class StoredFileNotFoundError extends Error {
  override readonly name = 'StoredFileNotFoundError';
}

export const fileStorageRef = createServiceRef<FileStorage>('storage.files');
