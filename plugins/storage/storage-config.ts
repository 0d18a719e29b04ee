import type { ConfigValues } from '../../core';

/** The storage plugin's config slice (convict); README's storage settings table lists each. */
export const storageConfig = {
  driver: { doc: 'Where stored files go: fs (a folder on this machine) or s3 (an S3-compatible store)', format: ['fs', 's3'] as const, default: 'fs', env: 'STORAGE_DRIVER' },
  fsDir: { doc: 'Folder of the fs driver; empty: DATA_DIR/files', format: String, default: '', env: 'STORAGE_FS_DIR' },
  s3Endpoint: { doc: 'URL of the S3-compatible store (http://minio:9000); empty: AWS S3 of S3_REGION', format: String, default: '', env: 'S3_ENDPOINT' },
  s3Region: { doc: 'Region requests are signed for', format: String, default: 'us-east-1', env: 'S3_REGION' },
  s3Bucket: { doc: 'Bucket the s3 driver keeps files in (required with STORAGE_DRIVER=s3)', format: String, default: '', env: 'S3_BUCKET' },
  s3AccessKeyId: { doc: 'Access key id; empty: the AWS SDK default credential chain (instance role, AWS_* variables)', format: String, default: '', env: 'S3_ACCESS_KEY_ID' },
  s3SecretAccessKey: { doc: 'Secret access key of S3_ACCESS_KEY_ID', format: String, default: '', env: 'S3_SECRET_ACCESS_KEY', sensitive: true },
  s3ForcePathStyle: { doc: 'Address the bucket in the path (host/bucket/key), as MinIO and Ceph expect; false: as a sub-domain (bucket.host/key)', format: Boolean, default: true, env: 'S3_FORCE_PATH_STYLE' },
  s3KeyPrefix: { doc: 'Prefix of every object key (switchboard/), to share a bucket; empty: none', format: String, default: '', env: 'S3_KEY_PREFIX' },
};

/** The slice as validated at boot. */
export type StorageSettings = ConfigValues<typeof storageConfig>;
