/** The plugin test kit: `import { startTestKernel } from 'switchboard/core/testing'`. */
export { startTestKernel, type TestKernel, type TestKernelOptions, type TestTenant, type ApiClient } from './test-kernel';
export { createTestDatabase } from './test-database';
