import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable, Transform, pipeline } from 'node:stream';
import { StoredFileNotFoundError, type FileStorage, type StoredFileEntry } from './file-storage';
import { isStorageKey, storageKeySegments, storagePrefixParts } from './storage-keys';
import { writingBody } from './stream-body';

export interface S3StorageOptions {
  /** Empty: AWS S3 itself, in `region`. */
  endpoint: string;
  region: string;
  bucket: string;
  /** Both empty: the AWS SDK's default credential chain (an instance role, AWS_* variables). */
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  keyPrefix: string;
  /** Objects (and incomplete uploads) asked for per listing request: S3's most, 1000, unless a test proves the paging with fewer. */
  listPageSize?: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;

/** The longest a presigned URL may live (SigV4 allows a week). */
const MAX_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Files as objects of one bucket of an S3-compatible store (AWS S3, MinIO, Ceph RGW),
 * each key (below `keyPrefix`) an object key.
 *
 * The client talks to the store with the SDK's own HTTP handler, not through the core
 * egress client: the endpoint is the operator's configuration, like DATABASE_URL, never a
 * URL a tenant or a request supplies, and it is often a private address (MinIO beside
 * the server) that the egress guard exists to refuse for user-given URLs.
 */
export class S3FileStorage implements FileStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly listPageSize: number;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.listPageSize = options.listPageSize ?? 1000;
    const prefix = options.keyPrefix.replace(/^\/+|\/+$/g, '');
    this.prefix = prefix ? `${prefix}/` : '';
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint || undefined,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // The SDK's default adds CRC checksums to every upload, streamed ones as aws-chunked
      // bodies with trailers, which S3-compatible stores other than AWS (older MinIO and
      // Ceph RGW among them) refuse or store framing and all. Only where an operation
      // requires one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK waits for ever by default; a store that stops answering fails the call
      // (after the SDK's retries) instead of holding a job. An idle limit, not a total
      // one: a long recording may take minutes to upload while bytes keep moving.
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
    });
  }

  async put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<{ path: string; size: number }> {
    return writingBody(body, () => this.write(key, body, options));
  }

  private async write(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<{ path: string; size: number }> {
    const Key = this.objectKey(key);
    const common = { Bucket: this.bucket, Key, ContentType: options.contentType };
    if (Buffer.isBuffer(body)) {
      if (options.size !== undefined && options.size !== body.length) {
        throw new Error(`storage: "${key}" was to be ${options.size} bytes, but ${body.length} arrived`);
      }
      await this.client.send(new PutObjectCommand({ ...common, Body: body, ContentLength: body.length }));
      return { path: Key, size: body.length };
    }
    if (options.size !== undefined) {
      // A known length lets the stream go out as one PUT, never held in memory.
      await this.client.send(new PutObjectCommand({ ...common, Body: body, ContentLength: options.size }));
      return { path: Key, size: options.size };
    }
    // PUT needs the length up front; without it the bytes go as a multipart upload, in
    // parts of 5 MiB (a small stream as one PUT), counted on their way.
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // A broken source ends the upload; a broken upload destroys the source (writingBody), and the pipe the rest.
    pipeline(body, counted, () => {});
    await new Upload({ client: this.client, params: { ...common, Body: counted } }).done();
    return { path: Key, size };
  }

  async read(key: string): Promise<{ body: Readable; size: number; contentType: string }> {
    const Key = this.objectKey(key);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      const body = answer.Body instanceof Readable ? answer.Body : Readable.fromWeb(answer.Body as never);
      return { body, size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isMissingObject(error)) throw new StoredFileNotFoundError(`no stored file "${key}"`);
      throw error;
    }
  }

  async move(from: string, to: string): Promise<{ path: string }> {
    const source = this.objectKey(from);
    const Key = this.objectKey(to);
    // The source as a URL path: each segment encoded, the slashes kept.
    const CopySource = `${this.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`;
    try {
      // Type and all: the copy keeps the source's metadata (MetadataDirective COPY).
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key, CopySource }));
    } catch (error) {
      if (isMissingObject(error)) throw new StoredFileNotFoundError(`no stored file "${from}"`);
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: source }));
    return { path: Key };
  }

  async remove(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (error) {
      // S3 answers 204 for a missing object; some compatible stores answer 404.
      if (!isMissingObject(error)) throw error;
    }
  }

  async signedUrl(key: string, ttlSeconds: number): Promise<string | null> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) {
      throw new RangeError(`storage: a signed URL lives 1 to ${MAX_TTL_SECONDS} seconds, not ${ttlSeconds}`);
    }
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }

  async *list(prefix: string, options: { olderThan?: Date } = {}): AsyncIterable<StoredFileEntry> {
    storagePrefixParts(prefix);
    const before = options.olderThan?.getTime();
    let ContinuationToken: string | undefined;
    do {
      // One page at a time, fetched as the caller gets to it.
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, MaxKeys: this.listPageSize, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.startsWith(this.prefix) ? object.Key.slice(this.prefix.length) : '';
        // A folder marker (`a/`) a console made, or a name no key can have, is no file of ours.
        if (!isStorageKey(key) || !object.LastModified) continue;
        if (before !== undefined && !(object.LastModified.getTime() < before)) continue;
        yield { key, size: object.Size ?? 0, modifiedAt: object.LastModified };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /**
   * Aborts the incomplete multipart uploads under `prefix` begun before `olderThan` (what
   * an upload of unknown length leaves when its process dies; a failed one aborts itself),
   * so the store frees their parts. A bucket lifecycle rule (AbortIncompleteMultipartUpload)
   * does the same on the store's side, where the operator sets one.
   */
  async removeUnfinished(prefix: string, options: { olderThan: Date }): Promise<number> {
    storagePrefixParts(prefix);
    const before = options.olderThan.getTime();
    let aborted = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix + prefix, MaxUploads: this.listPageSize, KeyMarker, UploadIdMarker }),
      );
      for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
        if (!Key || !UploadId || !Initiated || !(Initiated.getTime() < before)) continue;
        if (await this.abortUpload(Key, UploadId)) aborted += 1;
      }
      // The markers name the last upload listed, not a position: aborting what a page held moves nothing after it.
      if (!page.IsTruncated || !page.NextKeyMarker) break;
      KeyMarker = page.NextKeyMarker;
      UploadIdMarker = page.NextUploadIdMarker;
    }
    return aborted;
  }

  /** False when the upload is no longer there: completed or aborted meanwhile (another process sweeping too). */
  private async abortUpload(Key: string, UploadId: string): Promise<boolean> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId }));
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchUpload' || isMissingObject(error)) return false;
      throw error;
    }
  }

  /** Closes the client's idle connections. */
  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    storageKeySegments(key);
    return this.prefix + key;
  }
}

/** A missing object, as opposed to a missing bucket (a configuration error worth seeing as one). */
function isMissingObject(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || (name !== 'NoSuchBucket' && $metadata?.httpStatusCode === 404);
}
