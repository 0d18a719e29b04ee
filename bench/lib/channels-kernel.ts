/**
 * The kernel of bench/channels.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/lib/channels-kernel.ts`, forked with IPC; bench-kernel.ts):
 * the runtime and the plugins it depends on, and the channels plugin, in role `start` (it
 * serves HTTP and consumes the bus, as `npm start` does: an inbound message's turn and
 * its reply's send are bus consumers). It talks to the scripted model and provider of
 * bench/lib/channels-scripted.ts.
 */
import { serveBenchKernel, settingsFromEnv, type BenchKernelSettings } from './bench-kernel';
import { runChild } from './children';

export const KERNEL_PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime', 'channels'];

export type { BenchKernelMessage as KernelMessage } from './bench-kernel';

/** What the parent passes in the child's environment. */
export interface KernelSettings extends BenchKernelSettings {
  providerUrl: string;
  /** The URL the provider is told to call: the hook's signatures are over it. */
  publicBaseUrl: string;
}

if (require.main === module) {
  runChild(() => {
    const settings = settingsFromEnv<KernelSettings>();
    return serveBenchKernel({
      name: 'channels',
      plugins: KERNEL_PLUGINS,
      role: 'start',
      settings,
      sections: { channels: { twilioApiBaseUrl: settings.providerUrl, publicBaseUrl: settings.publicBaseUrl } },
    });
  });
}
