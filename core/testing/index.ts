/** The plugin test kit: `import { startTestKernel } from 'switchboard/core/testing'`. */
export { startTestKernel, type TestKernel, type TestKernelOptions, type TestTenant, type ApiClient } from './test-kernel';
export { createTestDatabase } from './test-database';
export { removeBrokerTopology } from './broker-topology';
export { startWorkerProcess, disabledPluginsExcept, waitForExit } from './worker-process';
export { startFakeLlmServer, type FakeLlmServer, type FakeLlmServerOptions, type FakeLlmReply, type FakeLlmRequest, type FakeLlmScript, type FakeToolCall } from './fake-llm-server';
export { captureLogger, CaptureTransport } from './capture-logger';
export { transactionsOpenLongerThan, type OpenTransaction } from './long-transactions';
export { waitFor } from './wait-for';
export {
  sweepCrossTenant,
  type ResourceFixture,
  type ResourceFixtures,
  type BodyFixture,
  type BodyFixtures,
  type SweepOptions,
  type SweepResult,
} from './cross-tenant-sweep';
