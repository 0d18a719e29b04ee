import { BootError, configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { createFileStorage, fsStorageRoot, storageConfigProblem } from './create-file-storage';
import { fileStorageRef } from './file-storage';
import { storageConfig } from './storage-config';

export { fileStorageRef, StoredFileNotFoundError, type FileStorage, type StoredFileEntry } from './file-storage';
export { InvalidStorageKeyError } from './storage-keys';

export default definePlugin({
  config: storageConfig,
  services: [
    createServiceFactory({
      service: fileStorageRef,
      deps: { config: configRef(storageConfig), rootConfig: coreServices.rootConfig, lifecycle: coreServices.lifecycle },
      factory: ({ config, rootConfig, lifecycle }) => {
        const storage = createFileStorage(config.all(), rootConfig.dataDir);
        if (storage.driver === 's3') lifecycle.onStop(() => storage.close());
        return storage;
      },
    }),
  ],
  deps: { config: configRef(storageConfig), rootConfig: coreServices.rootConfig, logger: coreServices.logger },
  // The factory runs only when a plugin first asks for the store; a bad setting stops
  // the boot here, whether or not any plugin installed uses it.
  init({ config, rootConfig, logger }) {
    const settings = config.all();
    const problem = storageConfigProblem(settings);
    if (problem) throw new BootError(problem);
    const where = settings.driver === 's3' ? `S3 bucket ${settings.s3Bucket}` : fsStorageRoot(settings, rootConfig.dataDir);
    logger.info(`stored files go to ${where}`);
  },
});
