import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable, Transform, pipeline } from 'node:stream';
import { StoredFileNotFoundError, type FileStorage } from './file-storage';
import { storageKeySegments } from './storage-keys';
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

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
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
