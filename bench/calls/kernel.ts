/**
 * The kernel of bench/calls.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/calls/kernel.ts`, forked with IPC; bench/lib/bench-kernel.ts):
 * the runtime and the plugins it depends on, channels and calls, in role `start` (HTTP and
 * the bus's consumers, as `npm start`: a call's deadline and its end are bus work). Its port
 * is chosen before it boots, because the Twilio-shaped server must reach it: PUBLIC_BASE_URL
 * (`channels.publicBaseUrl`) is the kernel's own URL, so each call's callbacks come here
 * and their signatures are over it.
 */
import { freePort, serveBenchKernel, settingsFromEnv, type BenchKernelSettings } from '../lib/bench-kernel';
import { runChild } from '../lib/children';

export const KERNEL_PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime', 'channels', 'storage', 'telephony', 'calls'];

export type { BenchKernelMessage as KernelMessage } from '../lib/bench-kernel';

/** What the parent passes in the child's environment. */
export interface KernelSettings extends BenchKernelSettings {
  /** The Twilio-shaped server's base URL (its REST API). */
  twilioUrl: string;
}

async function kernelServer(settings: KernelSettings): Promise<void> {
  const port = await freePort();
  await serveBenchKernel({
    name: 'calls',
    plugins: KERNEL_PLUGINS,
    role: 'start',
    settings,
    port,
    sections: { channels: { twilioApiBaseUrl: settings.twilioUrl, publicBaseUrl: `http://127.0.0.1:${port}` } },
  });
}

if (require.main === module) runChild(() => kernelServer(settingsFromEnv<KernelSettings>()));
