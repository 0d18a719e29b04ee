import fs from 'node:fs';
import path from 'node:path';
import { BootError, definePlugin } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { fileStorageRef, type FileStorage } from '../../../plugins/storage';
import { startLocalS3, type LocalS3 } from './local-s3';

const STORAGE = path.resolve(__dirname, '../../../plugins/storage');

/** A plugin using the store as transcriptions and calls do: through its ref, with storage in dependsOn. */
let files: FileStorage | undefined;
const user = definePlugin({
  id: 'storage-user',
  dependsOn: ['storage'],
  deps: { files: fileStorageRef },
  init({ files: given }) {
    files = given;
  },
});

describe('the storage plugin', () => {
  let kit: TestKernel | undefined;
  afterEach(async () => {
    await kit?.stop();
    kit = undefined;
    files = undefined;
  });

  it('gives other plugins the filesystem driver by default, under DATA_DIR/files', async () => {
    kit = await startTestKernel({ plugins: [STORAGE, user] });
    expect(files!.driver).toBe('fs');
    await files!.put('transcriptions/t1/a.wav', Buffer.from('wav'), { contentType: 'audio/wav' });
    expect(fs.readFileSync(path.join(kit.kernel.config.core.dataDir, 'files/transcriptions/t1/a.wav'), 'utf8')).toBe('wav');
    expect(kit.logs).toContainEqual(expect.objectContaining({ plugin: 'storage', message: `stored files go to ${path.resolve(kit.kernel.config.core.dataDir, 'files')}` }));
  });

  it('gives the S3 driver with STORAGE_DRIVER=s3, on the configured endpoint and bucket', async () => {
    const s3: LocalS3 = await startLocalS3(['switchboard-files']);
    try {
      kit = await startTestKernel({
        plugins: [STORAGE, user],
        config: { storage: { driver: 's3', s3Endpoint: s3.url, s3Bucket: 'switchboard-files', s3AccessKeyId: 'S3RVER', s3SecretAccessKey: 'S3RVER', s3KeyPrefix: 'prod' } },
      });
      expect(files!.driver).toBe('s3');
      await expect(files!.put('calls/t1/r.wav', Buffer.from('rec'), { contentType: 'audio/wav' })).resolves.toEqual({ path: 'prod/calls/t1/r.wav', size: 3 });
      expect(s3.requests.map((r) => `${r.method} ${new URL(r.url, s3.url).pathname}`)).toEqual(['PUT /switchboard-files/prod/calls/t1/r.wav']);
      const signed = await fetch((await files!.signedUrl('calls/t1/r.wav', 60))!);
      expect(await signed.text()).toBe('rec');
    } finally {
      await kit?.stop();
      kit = undefined;
      await s3.close();
    }
  });

  it('stops the boot when STORAGE_DRIVER=s3 has no bucket, naming the setting, even with no plugin using the store', async () => {
    const boot = startTestKernel({ plugins: [STORAGE], config: { storage: { driver: 's3' } } });
    await expect(boot).rejects.toBeInstanceOf(BootError);
    await expect(boot).rejects.toThrow('storage: STORAGE_DRIVER=s3 needs S3_BUCKET (storage.s3Bucket)');
  });

  it('stops the boot on an access key without its secret', async () => {
    const boot = startTestKernel({ plugins: [STORAGE], config: { storage: { driver: 's3', s3Bucket: 'b', s3AccessKeyId: 'AKIA' } } });
    await expect(boot).rejects.toThrow('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (storage.s3AccessKeyId, storage.s3SecretAccessKey) go together');
  });
});
