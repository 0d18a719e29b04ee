/**
 * The kernel of bench/channels.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/lib/channels-kernel.ts`, forked with IPC): the
 * runtime and the plugins it depends on, and the channels plugin, in role `start` (it
 * serves HTTP and consumes the bus, as `npm start` does: an inbound message's turn and
 * its reply's send are bus consumers). It talks to the scripted model and provider of
 * bench/lib/channels-scripted.ts; answers `ready` with its URL and a tenant's token.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const KERNEL_PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime', 'channels'];

export type KernelMessage = { type: 'ready'; url: string; token: string } | { type: 'error'; error: string };

/** What the parent passes in the child's environment. */
export interface KernelSettings {
  databaseUrl: string;
  llmUrl: string;
  providerUrl: string;
  /** The URL the provider is told to call: the hook's signatures are over it. */
  publicBaseUrl: string;
  baseDomain: string;
  tenantSlug: string;
  /** Extra kernel config (experiments only). */
  overrides: Record<string, unknown>;
}

async function kernelServer(settings: KernelSettings): Promise<void> {
  const { Kernel } = require('../../core/kernel/kernel') as typeof import('../../core/kernel/kernel');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-channels-'));
  const { channels: channelOverrides, ...overrides } = settings.overrides as { channels?: Record<string, unknown> };
  const kernel = await Kernel.boot({
    role: 'start',
    plugins: KERNEL_PLUGINS.map((id) => path.join(ROOT, 'plugins', id)),
    // Only what is set here: the host's environment must not change what is measured.
    env: {},
    migrate: true,
    config: {
      port: 0,
      host: '127.0.0.1',
      baseDomain: settings.baseDomain,
      databaseUrl: settings.databaseUrl,
      dataDir,
      secretsKey: crypto.randomBytes(32).toString('base64'),
      llmBaseUrl: settings.llmUrl,
      llmModel: 'bench-model',
      llmApiKey: 'sk-bench',
      // The scripted model and provider are on loopback, which egress refuses by default.
      egressAllowCidrs: ['127.0.0.0/8'],
      logLevel: 'warn',
      ...overrides,
      channels: { twilioApiBaseUrl: settings.providerUrl, publicBaseUrl: settings.publicBaseUrl, ...channelOverrides },
    },
  });
  await kernel.start();
  const { token } = await kernel.tenants.createTenant({ slug: settings.tenantSlug });
  process.on('message', async (message) => {
    if (message !== 'stop') return;
    await kernel.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ type: 'ready', url: kernel.url, token } satisfies KernelMessage);
}

if (require.main === module) {
  kernelServer(JSON.parse(process.env.BENCH_KERNEL_SETTINGS ?? '{}') as KernelSettings).catch((error) => {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies KernelMessage);
    process.exit(1);
  });
}
