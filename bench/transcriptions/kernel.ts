/**
 * The kernel of bench/transcriptions.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/transcriptions/kernel.ts`, forked with IPC;
 * bench/lib/bench-kernel.ts): the transcriptions plugin and what it depends on, in role
 * `start` (HTTP and the bus's consumers, as `npm start`: the transcription job is bus
 * work) or, for the uploads alone, `serve` (HTTP only: the jobs wait in the outbox), with the storage plugin's fs driver under its data folder and the provider of
 * bench/transcriptions/provider.ts. No evaluation plugin: a closed session is where the
 * measured path ends (its evaluation would need a model, and runs after).
 */
import { serveBenchKernel, settingsFromEnv, type BenchKernelSettings } from '../lib/bench-kernel';
import { runChild } from '../lib/children';

export const KERNEL_PLUGINS = ['agents', 'conversations', 'storage', 'agent-webhooks', 'tables', 'transcriptions'];

/** What the parent passes in the child's environment. */
export interface KernelSettings extends BenchKernelSettings {
  /** The provider's base URL, with its /v1 (TRANSCRIPTION_BASE_URL). */
  providerUrl: string;
  providerApiKey: string;
  /** `start` (HTTP and the bus's consumers: the jobs run) or `serve` (HTTP only: uploads are taken, their jobs wait in the outbox). */
  role: 'start' | 'serve';
}

if (require.main === module) {
  runChild(() => {
    const settings = settingsFromEnv<KernelSettings>();
    return serveBenchKernel({
      name: 'transcriptions',
      plugins: KERNEL_PLUGINS,
      role: settings.role,
      settings,
      sections: {
        storage: { driver: 'fs' },
        transcriptions: { baseUrl: settings.providerUrl, apiKey: settings.providerApiKey, model: 'bench-whisper' },
      },
    });
  });
}
