import path from 'node:path';
import { BootError, isHttpUrl } from '../../core';
import { FsFileStorage } from './fs-file-storage';
import { S3FileStorage } from './s3-file-storage';
import type { StorageSettings } from './storage-config';

/** What stops the boot in these settings, as a sentence naming the setting; null when they are usable. */
export function storageConfigProblem(settings: StorageSettings): string | null {
  if (settings.driver !== 's3') return null;
  if (!settings.s3Bucket) return 'storage: STORAGE_DRIVER=s3 needs S3_BUCKET (storage.s3Bucket), the bucket files are kept in';
  if (settings.s3Endpoint && !isHttpUrl(settings.s3Endpoint)) return 'storage: S3_ENDPOINT (storage.s3Endpoint) must be an http(s) URL such as http://minio:9000';
  if (Boolean(settings.s3AccessKeyId) !== Boolean(settings.s3SecretAccessKey)) {
    return 'storage: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (storage.s3AccessKeyId, storage.s3SecretAccessKey) go together: set both, or neither for the AWS default credentials';
  }
  return null;
}

/** The fs driver's folder: STORAGE_FS_DIR, else DATA_DIR/files (both relative to the current folder). */
export function fsStorageRoot(settings: StorageSettings, dataDir: string): string {
  return settings.fsDir ? path.resolve(settings.fsDir) : path.resolve(dataDir, 'files');
}

/** The configured driver; `dataDir` is the core DATA_DIR, home of the fs driver's folder unless STORAGE_FS_DIR names one. */
export function createFileStorage(settings: StorageSettings, dataDir: string): FsFileStorage | S3FileStorage {
  const problem = storageConfigProblem(settings);
  if (problem) throw new BootError(problem);
  if (settings.driver === 'fs') return new FsFileStorage(fsStorageRoot(settings, dataDir));
  return new S3FileStorage({
    endpoint: settings.s3Endpoint,
    region: settings.s3Region,
    bucket: settings.s3Bucket,
    accessKeyId: settings.s3AccessKeyId,
    secretAccessKey: settings.s3SecretAccessKey,
    forcePathStyle: settings.s3ForcePathStyle,
    keyPrefix: settings.s3KeyPrefix,
  });
}
